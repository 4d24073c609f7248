// The C++ sources of a kernel source repository, read for their op
// registrations (KO001 before any build): any bytes must give a bounded list
// (at most one registration per identifier), never a crash or a hang.
#include <cstdlib>

#include "checker/kinds/namespace_facts.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::vector<SourceRegistration> found = find_source_registrations(text, "binding.cpp");
  if (found.size() > size / 14 + 1) std::abort();  // "TORCH_LIBRARY(" is 14 bytes
  for (const SourceRegistration& registration : found) {
    if (registration.line < 1 || registration.namespace_.empty()) std::abort();
    (void)literal_namespace(registration);
  }
  return 0;
}
