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

// The CUDA capabilities a component is compiled for (build-variants.md §5.1,
// the upstream builder's "loose intersection"): each target capability picks
// the highest capability the component lists at or below it with the same
// major version (an entry with +PTX may match across majors); an entry with
// an `a`/`f` suffix is kept when its base is a target (and takes that target's
// place); +PTX is kept where the component asked for it, never added.
// `targets` are plain capabilities ("8.0", "9.0"). Sorted by version; empty
// when nothing matches.
std::vector<std::string> intersect_cuda_capabilities(const std::vector<std::string>& listed,
                                                     const std::vector<std::string>& targets);

// "9.0a+PTX" -> "9.0a"; "8.0" -> "8.0".
std::string without_ptx(const std::string& capability);

}  // namespace kcheck
