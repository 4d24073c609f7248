#include "checker/config/config_values.h"

#include "checker/support/name_shapes.h"
#include "checker/support/text_scan.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kcheck::build_config {
namespace {

constexpr std::array<std::string_view, 8> kAllBackends = {"cann",   "cpu",  "cuda", "metal",
                                                          "neuron", "rocm", "tpu",  "xpu"};
constexpr std::array<std::string_view, 5> kComponentBackends = {"cpu", "cuda", "metal", "rocm", "xpu"};
constexpr std::array<std::string_view, 11> kCppDependencies = {
    "torch",       "cutlass_2_10", "cutlass_3_5", "cutlass_3_6", "cutlass_3_8", "cutlass_3_9",
    "cutlass_4_0", "cutlass_4_4",  "cutlass_4_5", "sycl_tla",    "metal-cpp"};
constexpr std::array<std::string_view, 7> kGitSchemes = {"https",   "http",      "git",     "ssh",
                                                         "git+ssh", "git+https", "git+http"};

bool is_scheme(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

bool set_reason(std::string* why_not, std::string reason) {
  if (why_not) *why_not = std::move(reason);
  return false;
}

}  // namespace

std::span<const std::string_view> all_backends() { return kAllBackends; }
std::span<const std::string_view> component_backends() { return kComponentBackends; }
std::span<const std::string_view> cpp_dependencies() { return kCppDependencies; }

std::string_view conventional_backend(std::string_view dependency) {
  if (dependency.starts_with("cutlass_")) return "cuda";
  if (dependency == "sycl_tla") return "xpu";
  if (dependency == "metal-cpp") return "metal";
  return "";
}

bool contains(std::span<const std::string_view> list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string join(std::span<const std::string_view> list) {
  std::string joined;
  for (std::string_view item : list) joined += (joined.empty() ? "" : ", ") + std::string(item);
  return joined;
}

std::optional<Version> parse_config_version(std::string_view text, std::string* why_not) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) {
    set_reason(why_not, "empty version string");
    return std::nullopt;
  }
  std::vector<std::uint32_t> components;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.starts_with('+')) part.remove_prefix(1);
    const std::optional<std::uint32_t> number =
        part.size() > 9 ? std::nullopt : text::parse_decimal<std::uint32_t>(part);
    if (!number) {
      set_reason(why_not, "a version must consist of numbers separated by dots, e.g. \"2.12\"");
      return std::nullopt;
    }
    components.push_back(*number);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  while (!components.empty() && components.back() == 0) components.pop_back();
  return Version(std::move(components));
}

bool is_major_minor(std::string_view text) { return text::is_major_minor(text); }

bool is_valid_kernel_name(std::string_view name, std::string* why_not) {
  if (is_kernel_name_shape(name)) return true;
  return set_reason(why_not,
                    "a kernel name starts with a lowercase letter, continues with lowercase letters, digits and '-', "
                    "ends with a letter or digit, and has at least two characters (no '_', no uppercase)");
}

bool is_valid_git_url(std::string_view url, std::string* why_not) {
  std::size_t colon = url.find(':');
  if (colon == std::string_view::npos) return set_reason(why_not, "not a URL and not of the form user@host:path");
  std::string_view before = url.substr(0, colon);
  if (is_scheme(before)) {  // read as a URL first, as upstream does
    std::string scheme(before);
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!contains(kGitSchemes, scheme))
      return set_reason(why_not, "unsupported scheme '" + scheme + "' (accepted: " + join(kGitSchemes) +
                                     "; the SCP form needs a user part, e.g. git@github.com:org/repo.git)");
    if (!url.substr(colon).starts_with("://") || url.size() <= colon + 3)
      return set_reason(why_not, "invalid git URL: expected " + scheme + "://host/path");
    return true;
  }
  std::string_view path = url.substr(colon + 1);
  if (before.empty() || path.empty() || path.starts_with('/'))
    return set_reason(why_not, "invalid git URL: the SCP form is host:path with a non-empty relative path");
  return true;
}

bool is_valid_cuda_capability(std::string_view capability) { return is_cuda_capability_shape(capability); }

bool is_valid_rocm_arch(std::string_view arch) { return is_rocm_arch_shape(arch); }

std::string capability_base(std::string_view capability) {
  if (capability.ends_with("+PTX")) capability.remove_suffix(4);
  if (capability.ends_with('a') || capability.ends_with('f')) capability.remove_suffix(1);
  return std::string(capability);
}

std::vector<std::string> toolkit_default_capabilities(const Version& toolkit,
                                                      const std::vector<CudaToolkitDefaults>& defaults) {
  for (const CudaToolkitDefaults& entry : defaults)
    if (!(toolkit < entry.min_toolkit)) return entry.capabilities;
  return {};
}

std::vector<Version> toolkit_targets(const Version& toolkit, const std::vector<CudaToolkitDefaults>& defaults) {
  std::vector<Version> targets;
  for (const std::string& capability : toolkit_default_capabilities(toolkit, defaults))
    if (auto target = Version::parse(capability_base(capability))) targets.push_back(*target);
  return targets;
}

namespace {

// Orders "8.0" < "8.6" < "9.0" < "9.0a" < "10.0" (numerically, suffix last).
std::pair<std::pair<int, int>, std::string> capability_key(const std::string& capability) {
  // Saturating: a capability of absurd length (user input) orders last instead of overflowing.
  auto number = [&capability](std::size_t& i) {
    int value = 0;
    for (; i < capability.size() && std::isdigit(static_cast<unsigned char>(capability[i])); ++i)
      value = std::min(value * 10 + (capability[i] - '0'), 1'000'000);
    return value;
  };
  std::size_t i = 0;
  const int major = number(i);
  if (i < capability.size() && capability[i] == '.') ++i;
  const int minor = number(i);
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

bool capabilities_build_with_toolkit(const std::vector<std::string>& capabilities, const Version& toolkit,
                                     const std::vector<CudaToolkitDefaults>& defaults) {
  std::vector<std::string> listed, targets;
  for (const std::string& capability : capabilities)
    if (is_valid_cuda_capability(capability) && Version::parse(capability_base(capability)))
      listed.push_back(capability);
  for (const std::string& capability : toolkit_default_capabilities(toolkit, defaults))
    targets.push_back(capability_base(capability));
  return !intersect_cuda_capabilities(listed, targets).empty();
}

}  // namespace kcheck::build_config
