#pragma once
#include <functional>
#include <string>
#include <vector>

namespace kcheck {

// The ROCm architectures a rocm variant is compiled for, and those left out.
struct RocmArchSelection {
  std::vector<std::string> archs;                  // in the order wanted
  std::vector<std::string> outside_policy;         // not in the policy's supported list
  std::vector<std::string> compiler_cannot_build;  // hipcc rejects them
};

// The archs to compile: `requested` (--rocm-archs), else those build.toml's
// components list, else the policy's supported list; kept when the policy
// supports them (build-variants.md §5.2, exact names) and the compiler can
// build them. Throws BuildError when none remains, naming every dropped arch.
RocmArchSelection select_rocm_archs(const std::vector<std::string>& requested, const std::vector<std::string>& listed,
                                    const std::vector<std::string>& policy_archs,
                                    const std::function<bool(const std::string&)>& compiler_supports);

}  // namespace kcheck
