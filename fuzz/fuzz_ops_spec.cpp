// A repository's kcheck-ops.toml (issue #28): every problem must come back as
// an OpSpecError naming the op and key, never as a crash, a hang or another
// exception; a spec that parses must also describe itself for a report.
#include "checker/harness/op_spec.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const OpSpecSet specs = parse_op_specs(fuzz::as_text(data, size), "kcheck-ops.toml");
    for (const OpSpec& spec : specs.ops) (void)specs.find(spec.name);
  } catch (const OpSpecError&) {
  }
  return 0;
}
