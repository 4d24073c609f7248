#include "checker/config/config_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

namespace kcheck::build_config {
namespace {

constexpr std::array<std::string_view, 8> kAllBackends = {"cann", "cpu", "cuda", "metal", "neuron", "rocm", "tpu", "xpu"};
constexpr std::array<std::string_view, 5> kComponentBackends = {"cpu", "cuda", "metal", "rocm", "xpu"};
constexpr std::array<std::string_view, 11> kCppDependencies = {
    "torch",      "cutlass_2_10", "cutlass_3_5", "cutlass_3_6", "cutlass_3_8", "cutlass_3_9",
    "cutlass_4_0", "cutlass_4_4", "cutlass_4_5", "sycl_tla",    "metal-cpp"};
constexpr std::array<std::string_view, 7> kGitSchemes = {"https", "http", "git", "ssh", "git+ssh", "git+https", "git+http"};

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
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      set_reason(why_not, "a version must consist of numbers separated by dots, e.g. \"2.12\"");
      return std::nullopt;
    }
    components.push_back(static_cast<std::uint32_t>(std::stoul(std::string(part))));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  while (!components.empty() && components.back() == 0) components.pop_back();
  return Version(std::move(components));
}

bool is_major_minor(std::string_view text) {
  static const std::regex pattern(R"(^[0-9]+\.[0-9]+$)");
  return std::regex_match(text.begin(), text.end(), pattern);
}

bool is_valid_kernel_name(std::string_view name, std::string* why_not) {
  static const std::regex pattern(R"(^[a-z][-a-z0-9]*[a-z0-9]$)");
  if (std::regex_match(name.begin(), name.end(), pattern)) return true;
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

bool is_valid_cuda_capability(std::string_view capability) {
  static const std::regex pattern(R"(^[0-9]+\.[0-9]+[af]?(\+PTX)?$)");
  return std::regex_match(capability.begin(), capability.end(), pattern);
}

bool is_valid_rocm_arch(std::string_view arch) {
  static const std::regex pattern(R"(^gfx[0-9]+[a-z]?$)");
  return std::regex_match(arch.begin(), arch.end(), pattern);
}

std::string capability_base(std::string_view capability) {
  if (capability.ends_with("+PTX")) capability.remove_suffix(4);
  if (capability.ends_with('a') || capability.ends_with('f')) capability.remove_suffix(1);
  return std::string(capability);
}

std::vector<Version> toolkit_targets(const Version& toolkit, const std::vector<CudaToolkitDefaults>& defaults) {
  std::vector<Version> targets;
  for (const CudaToolkitDefaults& entry : defaults) {
    if (toolkit < entry.min_toolkit) continue;
    for (const std::string& capability : entry.capabilities)
      if (auto target = Version::parse(capability_base(capability))) targets.push_back(*target);
    break;
  }
  return targets;
}

bool capabilities_build_with_toolkit(const std::vector<std::string>& capabilities, const Version& toolkit,
                                     const std::vector<CudaToolkitDefaults>& defaults) {
  std::vector<Version> targets = toolkit_targets(toolkit, defaults);
  for (const std::string& capability : capabilities) {
    if (!is_valid_cuda_capability(capability)) continue;
    std::string base_text = capability_base(capability);
    const std::optional<Version> parsed = Version::parse(base_text);
    if (!parsed) continue;  // digits past 2^32: not a capability any toolkit builds
    const Version& base = *parsed;
    bool ptx = capability.ends_with("+PTX");
    bool arch_specific = capability.size() > base_text.size() + (ptx ? 4 : 0);
    for (const Version& target : targets) {
      if (arch_specific ? target == base : (target >= base && (ptx || target.major() == base.major())))
        return true;
    }
  }
  return false;
}

}  // namespace kcheck::build_config
