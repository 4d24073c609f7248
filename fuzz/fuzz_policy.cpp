// Policy files (`--policy FILE`): every problem must come back as a
// PolicyError naming the key, never as a crash or another exception.
#include "checker/core/policy.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    parse_policy(fuzz::as_text(data, size), "fuzz.toml");
  } catch (const PolicyError&) {
  }
  return 0;
}
