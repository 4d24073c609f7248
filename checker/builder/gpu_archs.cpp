#include "checker/builder/gpu_archs.h"

#include <algorithm>
#include <cctype>

#include "checker/builder/kernel_builder.h"

namespace kcheck {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Orders "8.0" < "8.6" < "9.0" < "9.0a" < "10.0" (numerically, suffix last).
std::pair<std::pair<int, int>, std::string> capability_key(const std::string& capability) {
  int major = 0, minor = 0;
  std::size_t i = 0;
  while (i < capability.size() && std::isdigit(static_cast<unsigned char>(capability[i]))) major = major * 10 + (capability[i++] - '0');
  if (i < capability.size() && capability[i] == '.') ++i;
  while (i < capability.size() && std::isdigit(static_cast<unsigned char>(capability[i]))) minor = minor * 10 + (capability[i++] - '0');
  return {{major, minor}, capability.substr(i)};
}

bool has_arch_suffix(const std::string& capability) {
  return !capability.empty() && (capability.back() == 'a' || capability.back() == 'f');
}

}  // namespace

std::string without_ptx(const std::string& capability) {
  return capability.ends_with("+PTX") ? capability.substr(0, capability.size() - 4) : capability;
}

std::vector<std::string> intersect_cuda_capabilities(const std::vector<std::string>& listed,
                                                     const std::vector<std::string>& targets) {
  std::vector<std::string> bases, with_ptx;
  for (const std::string& capability : listed) {
    std::string base = without_ptx(capability);
    if (base != capability) with_ptx.push_back(base);
    if (std::find(bases.begin(), bases.end(), base) == bases.end()) bases.push_back(base);
  }
  std::vector<std::string> remaining_targets = targets, chosen;
  std::vector<std::string> plain;
  for (const std::string& base : bases) {
    if (!has_arch_suffix(base)) {
      plain.push_back(base);
      continue;
    }
    const std::string numeric = base.substr(0, base.size() - 1);
    auto target = std::find(remaining_targets.begin(), remaining_targets.end(), numeric);
    if (target == remaining_targets.end()) continue;
    remaining_targets.erase(target);
    chosen.push_back(base);
  }
  auto by_version = [](const std::string& a, const std::string& b) { return capability_key(a) < capability_key(b); };
  std::sort(plain.begin(), plain.end(), by_version);
  for (const std::string& target : remaining_targets) {
    const auto target_key = capability_key(target);
    std::string best;
    for (const std::string& candidate : plain) {
      const auto key = capability_key(candidate);
      if (target_key.first < key.first) break;
      const bool ptx = std::find(with_ptx.begin(), with_ptx.end(), candidate) != with_ptx.end();
      if (ptx || key.first.first == target_key.first.first) best = candidate;
    }
    if (!best.empty() && std::find(chosen.begin(), chosen.end(), best) == chosen.end()) chosen.push_back(best);
  }
  for (std::string& capability : chosen)
    if (std::find(with_ptx.begin(), with_ptx.end(), capability) != with_ptx.end()) capability += "+PTX";
  std::sort(chosen.begin(), chosen.end(), [&](const std::string& a, const std::string& b) {
    return capability_key(without_ptx(a)) < capability_key(without_ptx(b));
  });
  return chosen;
}

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
    throw BuildError("no ROCm architecture left to compile (wanted: " + joined(wanted) + ")" +
                     (selection.outside_policy.empty() ? "" : "; not supported by the policy: " + joined(selection.outside_policy)) +
                     (selection.compiler_cannot_build.empty() ? "" : "; hipcc cannot compile: " + joined(selection.compiler_cannot_build)));
  return selection;
}

}  // namespace kcheck
