// The variant-name grammar (build-variants.md), with and without the reason.
#include <string>

#include "checker/kinds/variant_name.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view name = fuzz::as_text(data, size);
  std::string why_not;
  const auto parsed = parse_variant_name(name, &why_not);
  // Exactly one of a parse and a reason, and the parse does not depend on
  // whether a reason was asked for.
  if (parsed.has_value() == !why_not.empty()) __builtin_trap();
  if (parse_variant_name(name).has_value() != parsed.has_value()) __builtin_trap();
  return 0;
}
