// A repository's kcheck.toml and pyproject.toml [tool.kcheck] (issue #28):
// every problem must come back as a SuppressionConfigError naming the file
// and line, never as a crash, a hang or another exception.
#include "checker/config/repository_config.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the file: the two are read by different rules.
  const char* file = data[0] % 2 == 0 ? "kcheck.toml" : "pyproject.toml";
  try {
    parse_suppressions(fuzz::as_text(data + 1, size - 1), file);
  } catch (const SuppressionConfigError&) {
  }
  return 0;
}
