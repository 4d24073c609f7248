// kcheck-only checks of build.toml values (build-toml.md §7.3, B5, and the
// naming/pairing warnings of §4.8 and §5.4). They run on the values read,
// after the file has been classified; they need no policy.
#include <algorithm>
#include <set>

#include "checker/config/build_config_schema.h"
#include "checker/config/config_values.h"
#include "checker/support/text_scan.h"

namespace kcheck::build_config {
namespace {

// A component name: ^[A-Za-z0-9_-]+$.
bool is_label_char(char c) { return text::is_alnum(c) || c == '_' || c == '-'; }

// ^[A-Za-z0-9][-A-Za-z0-9_.]*/[-A-Za-z0-9_.]+$, e.g. "kernels-community/relu".
bool is_hub_repo_id(std::string_view repo_id) {
  auto name_char = [](char c) { return is_label_char(c) || c == '.'; };
  const std::size_t slash = repo_id.find('/');
  if (slash == std::string_view::npos || slash == 0 || !text::is_alnum(repo_id.front())) return false;
  return std::all_of(repo_id.begin(), repo_id.begin() + static_cast<long>(slash), name_char) &&
         text::consists_of(repo_id.substr(slash + 1), name_char);
}

class ValueChecks {
 public:
  explicit ValueChecks(const BuildConfigFacts& facts) : facts_(facts) {}

  std::vector<ConfigProblem> run() {
    check_general();
    check_framework();
    for (const KernelComponent& component : facts_.components) check_component(component);
    check_backends_without_component();
    return std::move(problems_);
  }

 private:
  void add(const std::string& key, ConfigPosition where, std::string message, Severity severity = Severity::error) {
    problems_.push_back({key, where, std::move(message), severity});
  }

  void check_range(const std::optional<ConfigVersion>& min, const std::optional<ConfigVersion>& max) {
    if (min && max && min->version && max->version && *min->version > *max->version)
      add(min->key, min->position,
          "`" + min->key + "` = \"" + min->text + "\" is above `" + max->key + "` = \"" + max->text +
              "\": no version can be built");
  }

  void check_general() {
    const GeneralSection& general = facts_.general;
    const ConfigStringList& backends = general.backends;
    if (backends.present && backends.items.empty())
      add(backends.key, backends.position, "`general.backends` is empty: list the backends the kernel supports");
    std::set<std::string> seen;
    for (const ConfigString& backend : backends.items)
      if (!seen.insert(backend.value).second)
        add(backend.key, backend.position, "backend \"" + backend.value + "\" is listed twice in `general.backends`",
            Severity::warning);
    if (general.license && std::all_of(general.license->value.begin(), general.license->value.end(), ::isspace))
      add("general.license", general.license->position,
          "`general.license` is empty: write a Hub license id such as \"apache-2.0\"");
    if (general.hub_repo_id && !is_hub_repo_id(general.hub_repo_id->value))
      add(general.hub_repo_id->key, general.hub_repo_id->position,
          "`general.hub.repo-id` = \"" + general.hub_repo_id->value + "\" is not of the form owner/name",
          Severity::warning);
    if (auto cuda = general.backend_settings.find("cuda"); cuda != general.backend_settings.end())
      check_range(cuda->second.minver, cuda->second.maxver);
  }

  void check_capabilities(const ConfigStringList& capabilities) {
    for (const ConfigString& capability : capabilities.items)
      if (!is_valid_cuda_capability(capability.value))
        add(capability.key, capability.position,
            "malformed CUDA capability \"" + capability.value + "\" in `" + capability.key +
                "`: expected major.minor with an optional a/f suffix and +PTX, e.g. \"8.0\", \"9.0a\", \"9.0+PTX\"");
  }

  void check_rocm_archs(const ConfigStringList& archs) {
    for (const ConfigString& arch : archs.items)
      if (!is_valid_rocm_arch(arch.value))
        add(arch.key, arch.position,
            "malformed ROCm architecture \"" + arch.value + "\" in `" + arch.key +
                "`: expected gfx<digits>[letter], "
                "e.g. \"gfx90a\", \"gfx942\"");
  }

  void check_stable_abi_version(const ConfigVersion& version) {
    if (version.version && (!is_major_minor(version.text) || version.version->components().size() != 2))
      add(version.key, version.position,
          "`" + version.key + "` = \"" + version.text + "\" is not major.minor: upstream normalises it to \"" +
              version.version->str() + "\", which breaks the CMake step that splits major and minor",
          Severity::warning);
  }

  void check_framework() {
    const FrameworkSection& framework = facts_.framework;
    check_range(framework.minver, framework.maxver);
    if (framework.stable_abi_all_backends) check_stable_abi_version(*framework.stable_abi_all_backends);
    for (const auto& [backend, version] : framework.stable_abi_per_backend) check_stable_abi_version(version);
    check_capabilities(framework.cuda_capabilities);
    check_rocm_archs(framework.rocm_archs);
  }

  bool declared_backend(const std::string& backend) const {
    const auto& items = facts_.general.backends.items;
    return std::any_of(items.begin(), items.end(), [&](const ConfigString& b) { return b.value == backend; });
  }

  void check_component(const KernelComponent& component) {
    if (!text::consists_of(component.name, is_label_char))
      add(component.key, component.position,
          "component name \"" + component.name + "\" is not made of letters, digits, '_' and '-' only",
          Severity::warning);
    const std::string backend = component.backend ? component.backend->value : "";
    if (!backend.empty() && facts_.general.backends.present && !declared_backend(backend))
      add(component.backend->key, component.backend->position,
          "`" + component.key + "` is a " + backend + " component but \"" + backend +
              "\" is not in `general.backends`: it is never built",
          Severity::warning);
    if (component.src.present && component.src.items.empty())
      add(component.src.key, component.src.position,
          "`" + component.src.key + "` is empty: the generated CMake aborts (\"SOURCES argument is required\")");
    for (const ConfigString& dependency : component.depends.items) {
      std::string_view paired = conventional_backend(dependency.value);
      if (!paired.empty() && !backend.empty() && paired != backend && contains(cpp_dependencies(), dependency.value))
        add(dependency.key, dependency.position,
            "C++ dependency \"" + dependency.value + "\" is for " + std::string(paired) + " components; `" +
                component.key + "` has backend = \"" + backend + "\"",
            Severity::warning);
    }
    check_capabilities(component.cuda_capabilities);
    check_rocm_archs(component.rocm_archs);
  }

  // §4.8: in a compiled kernel, a backend with no component becomes a
  // Python-only variant.
  void check_backends_without_component() {
    FrameworkKind kind = facts_.framework.kind;
    if (kind != FrameworkKind::torch && kind != FrameworkKind::tvm_ffi) return;
    std::set<std::string> reported;
    for (const ConfigString& backend : facts_.general.backends.items) {
      if (!reported.insert(backend.value).second) continue;
      bool has_component =
          std::any_of(facts_.components.begin(), facts_.components.end(),
                      [&](const KernelComponent& c) { return c.backend && c.backend->value == backend.value; });
      if (!has_component && contains(all_backends(), backend.value))
        add(backend.key, backend.position,
            "backend \"" + backend.value + "\" has no [kernel.*] component: it is built as a Python-only torch-" +
                backend.value + " variant",
            Severity::note);
    }
  }

  const BuildConfigFacts& facts_;
  std::vector<ConfigProblem> problems_;
};

}  // namespace

std::vector<ConfigProblem> check_values(const BuildConfigFacts& facts) { return ValueChecks(facts).run(); }

}  // namespace kcheck::build_config
