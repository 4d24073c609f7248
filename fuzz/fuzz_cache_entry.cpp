// A scan cache entry's records (checker/scan/fact_codec.h): the cache
// directory may hold planted bytes (docs/scan.md). Decoding never crashes,
// never allocates past what the bytes can hold (-rss_limit_mb), and what it
// accepts encodes back to bytes that decode to the same records.
#include "checker/scan/fact_codec.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto records = decode_cached_files(fuzz::as_text(data, size));
  if (!records) return 0;
  const std::string encoded = encode_cached_files(*records);
  const auto again = decode_cached_files(encoded);
  if (!again || encode_cached_files(*again) != encoded) __builtin_trap();
  return 0;
}
