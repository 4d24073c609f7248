#include "checker/builder/gpu_archs.h"

#include <algorithm>

#include "checker/builder/kernel_builder.h"

namespace kcheck {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

RocmArchSelection select_rocm_archs(const std::vector<std::string>& requested, const std::vector<std::string>& listed,
                                    const std::vector<std::string>& policy_archs,
                                    const std::function<bool(const std::string&)>& compiler_supports) {
  const std::vector<std::string>& wanted = !requested.empty() ? requested : !listed.empty() ? listed : policy_archs;
  RocmArchSelection selection;
  for (const std::string& arch : wanted) {
    if (std::find(selection.archs.begin(), selection.archs.end(), arch) != selection.archs.end()) continue;
    if (std::find(policy_archs.begin(), policy_archs.end(), arch) == policy_archs.end())
      selection.outside_policy.push_back(arch);
    else if (!compiler_supports(arch))
      selection.compiler_cannot_build.push_back(arch);
    else
      selection.archs.push_back(arch);
  }
  if (selection.archs.empty())
    throw BuildError(
        "no ROCm architecture left to compile (wanted: " + joined(wanted) + ")" +
        (selection.outside_policy.empty() ? "" : "; not supported by the policy: " + joined(selection.outside_policy)) +
        (selection.compiler_cannot_build.empty()
             ? ""
             : "; hipcc cannot compile: " + joined(selection.compiler_cannot_build)));
  return selection;
}

}  // namespace kcheck
