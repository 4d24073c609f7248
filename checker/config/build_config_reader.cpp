// Reads build.toml into BuildConfigFacts: parse, classify against the
// schema, take the values (type-tolerant: a value of the wrong type is left
// out, the schema problems say so), and look on disk for what it names.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>

#include "checker/kinds/build_config_facts.h"
#include "checker/config/build_config_schema.h"
#include "checker/config/config_values.h"
#include "checker/support/bounded_read.h"
#include "checker/support/checked_toml.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using build_config::position_of;

std::string child_key(std::string_view parent, std::string_view key) {
  return std::string(parent) + "." + std::string(key);
}

std::optional<ConfigString> read_string(const toml::table& table, std::string_view parent, std::string_view key) {
  const toml::node* node = table.get(key);
  if (!node || !node->is_string()) return std::nullopt;
  return ConfigString{*node->value<std::string>(), child_key(parent, key), position_of(node->source())};
}

std::optional<std::int64_t> read_integer(const toml::table& table, std::string_view key) {
  const toml::node* node = table.get(key);
  return node && node->is_integer() ? node->value<std::int64_t>() : std::nullopt;
}

ConfigStringList read_string_list(const toml::table& table, std::string_view parent, std::string_view key) {
  ConfigStringList list;
  list.key = child_key(parent, key);
  const toml::node* node = table.get(key);
  if (!node) return list;
  list.position = position_of(node->source());
  const toml::array* array = node->as_array();
  if (!array) return list;
  list.present = true;
  for (std::size_t i = 0; i < array->size(); ++i)
    if (const toml::node* item = array->get(i); item->is_string())
      list.items.push_back(
          {*item->value<std::string>(), list.key + "[" + std::to_string(i) + "]", position_of(item->source())});
  return list;
}

ConfigVersion version_of(const toml::node& node, std::string key) {
  ConfigVersion version{*node.value<std::string>(), std::move(key), position_of(node.source()), std::nullopt};
  version.version = build_config::parse_config_version(version.text);
  return version;
}

std::optional<ConfigVersion> read_version(const toml::table& table, std::string_view parent, std::string_view key) {
  const toml::node* node = table.get(key);
  if (!node || !node->is_string()) return std::nullopt;
  return version_of(*node, child_key(parent, key));
}

std::vector<KernelHubDependency> read_kernel_depends(const toml::table& table, std::string_view parent) {
  std::vector<KernelHubDependency> dependencies;
  const toml::array* array = table["kernel-depends"].as_array();
  if (!array) return dependencies;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::table* entry = array->get(i)->as_table();
    if (!entry) continue;
    KernelHubDependency dependency;
    dependency.key = child_key(parent, "kernel-depends") + "[" + std::to_string(i) + "]";
    dependency.position = position_of(entry->source());
    dependency.repo_id = (*entry)["repo-id"].value_or(std::string());
    dependency.version = read_integer(*entry, "version");
    if (const toml::node* revision = entry->get("revision"); revision && revision->is_string())
      dependency.revision = *revision->value<std::string>();
    dependencies.push_back(std::move(dependency));
  }
  return dependencies;
}

GeneralSection read_general(const toml::table& root) {
  GeneralSection general;
  const toml::table* table = root["general"].as_table();
  if (!table) return general;
  general.present = true;
  general.position = position_of(table->source());
  general.name = read_string(*table, "general", "name");
  general.version = read_integer(*table, "version");
  general.edition = read_integer(*table, "edition");
  general.license = read_string(*table, "general", "license");
  general.backends = read_string_list(*table, "general", "backends");
  general.upstream = read_string(*table, "general", "upstream");
  general.source = read_string(*table, "general", "source");
  general.python_depends = read_string_list(*table, "general", "python-depends");
  general.kernel_depends = read_kernel_depends(*table, "general");
  if (const toml::table* hub = (*table)["hub"].as_table()) {
    general.hub_repo_id = read_string(*hub, "general.hub", "repo-id");
    general.hub_branch = read_string(*hub, "general.hub", "branch");
  }
  for (std::string_view backend : {"cuda", "xpu", "neuron", "tpu"}) {
    const toml::table* settings_table = (*table)[backend].as_table();
    if (!settings_table) continue;
    std::string parent = child_key("general", backend);
    BackendSettings settings;
    settings.backend = backend;
    settings.position = position_of(settings_table->source());
    settings.minver = read_version(*settings_table, parent, "minver");
    settings.maxver = read_version(*settings_table, parent, "maxver");
    settings.python_depends = read_string_list(*settings_table, parent, "python-depends");
    settings.kernel_depends = read_kernel_depends(*settings_table, parent);
    general.backend_settings.emplace(std::string(backend), std::move(settings));
  }
  return general;
}

void read_stable_abi(const toml::table& torch, FrameworkSection& framework) {
  const toml::node* node = torch.get("stable-abi");
  if (!node) return;
  if (node->is_string()) framework.stable_abi_all_backends = version_of(*node, "torch.stable-abi");
  if (const toml::table* per_backend = node->as_table())
    for (const auto& [backend, version] : *per_backend)
      if (version.is_string())
        framework.stable_abi_per_backend.emplace(std::string(backend.str()),
                                                 version_of(version, child_key("torch.stable-abi", backend.str())));
}

// The framework sections in file order; the first one is read.
void read_framework(const toml::table& root, BuildConfigFacts& facts) {
  std::vector<std::pair<ConfigPosition, FrameworkKind>> found;
  for (FrameworkKind kind : {FrameworkKind::torch, FrameworkKind::torch_noarch, FrameworkKind::tvm_ffi})
    if (const toml::table* table = root[to_string(kind)].as_table())
      found.emplace_back(position_of(table->source()), kind);
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::pair(a.first.line, a.first.column) < std::pair(b.first.line, b.first.column);
  });
  for (const auto& [position, kind] : found) facts.framework_sections.push_back(kind);
  if (found.empty()) return;
  FrameworkSection& framework = facts.framework;
  framework.kind = found.front().second;
  framework.position = found.front().first;
  const std::string name(to_string(framework.kind));
  const toml::table& table = *root[name].as_table();
  framework.src = read_string_list(table, name, "src");
  framework.include = read_string_list(table, name, "include");
  framework.pyext = read_string_list(table, name, "pyext");
  framework.cxx_flags = read_string_list(table, name, "cxx-flags");
  framework.minver = read_version(table, name, "minver");
  framework.maxver = read_version(table, name, "maxver");
  framework.cuda_capabilities = read_string_list(table, name, "cuda_capabilities");
  framework.rocm_archs = read_string_list(table, name, "rocm_archs");
  read_stable_abi(table, framework);
}

std::vector<KernelComponent> read_components(const toml::table& root) {
  std::vector<KernelComponent> components;
  const toml::table* kernel = root["kernel"].as_table();
  if (!kernel) return components;
  for (const auto& [name, value] : *kernel) {
    const toml::table* table = value.as_table();
    if (!table) continue;
    KernelComponent component;
    component.name = name.str();
    component.key = child_key("kernel", name.str());
    component.position = position_of(table->source());
    component.backend = read_string(*table, component.key, "backend");
    component.src = read_string_list(*table, component.key, "src");
    component.include = read_string_list(*table, component.key, "include");
    component.depends = read_string_list(*table, component.key, "depends");
    component.cxx_flags = read_string_list(*table, component.key, "cxx-flags");
    component.cuda_capabilities = read_string_list(*table, component.key, "cuda-capabilities");
    component.cuda_flags = read_string_list(*table, component.key, "cuda-flags");
    component.cuda_minver = read_version(*table, component.key, "cuda-minver");
    component.rocm_archs = read_string_list(*table, component.key, "rocm-archs");
    component.hip_flags = read_string_list(*table, component.key, "hip-flags");
    component.sycl_flags = read_string_list(*table, component.key, "sycl-flags");
    components.push_back(std::move(component));
  }
  // toml++ keeps keys sorted; the file order is what a reader expects.
  std::stable_sort(components.begin(), components.end(), [](const KernelComponent& a, const KernelComponent& b) {
    return a.position.line < b.position.line;
  });
  return components;
}

PathStatus path_status(const fs::path& kernel_dir, const std::string& listed, bool is_include) {
  fs::path path(listed);
  if (path.is_absolute()) return PathStatus::absolute;
  fs::path normal = path.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") return PathStatus::escapes_root;
  std::error_code error;
  fs::path full = kernel_dir / normal;
  fs::file_status status = fs::status(full, error);
  if (error || !fs::exists(status)) return PathStatus::missing;
  fs::path resolved = fs::weakly_canonical(full, error);
  fs::path root = fs::weakly_canonical(kernel_dir, error);
  if (!error && resolved.lexically_relative(root).string().starts_with("..")) return PathStatus::escapes_root;
  if (is_include && !fs::is_directory(status)) return PathStatus::not_a_directory;
  if (!is_include && fs::is_directory(status)) return PathStatus::not_a_file;
  return PathStatus::ok;
}

std::vector<ListedPath> check_listed_paths(const BuildConfigFacts& facts) {
  std::vector<ListedPath> paths;
  auto add = [&](const ConfigStringList& list, bool is_include) {
    for (const ConfigString& item : list.items)
      paths.push_back({item, is_include, path_status(facts.kernel_dir, item.value, is_include)});
  };
  add(facts.framework.src, false);
  add(facts.framework.include, true);
  for (const KernelComponent& component : facts.components) {
    add(component.src, false);
    add(component.include, true);
  }
  return paths;
}

std::optional<PythonPackageFacts> check_python_package(const BuildConfigFacts& facts) {
  if (!facts.general.name || !build_config::is_valid_kernel_name(facts.general.name->value)) return std::nullopt;
  if (facts.framework.kind == FrameworkKind::none) return std::nullopt;
  PythonPackageFacts package;
  package.module = facts.module_name();
  const char* root = facts.framework.kind == FrameworkKind::tvm_ffi ? "tvm-ffi-ext" : "torch-ext";
  package.directory = std::string(root) + "/" + package.module;
  std::error_code error;
  package.init_exists = fs::is_regular_file(facts.kernel_dir / package.directory / "__init__.py", error);
  package.nested_module_exists = fs::exists(facts.kernel_dir / package.directory / package.module, error);
  return package;
}

// Fills every value the file holds and what is on disk.
void read_values(const toml::table& root, BuildConfigFacts& facts) {
  facts.general = read_general(root);
  read_framework(root, facts);
  facts.components = read_components(root);
  facts.listed_paths = check_listed_paths(facts);
  facts.python_package = check_python_package(facts);
}

bool values_are_checked(BuildEdition edition) {
  return edition == BuildEdition::edition5 || edition == BuildEdition::v4 || edition == BuildEdition::unknown;
}

}  // namespace

std::string_view to_string(BuildEdition edition) {
  switch (edition) {
    case BuildEdition::edition5:
      return "edition 5";
    case BuildEdition::v4:
      return "v4";
    case BuildEdition::v3:
      return "v3";
    case BuildEdition::pre_v3:
      return "pre-v3";
    case BuildEdition::unsupported:
      return "unsupported edition";
    case BuildEdition::unknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(FrameworkKind kind) {
  switch (kind) {
    case FrameworkKind::torch:
      return "torch";
    case FrameworkKind::torch_noarch:
      return "torch-noarch";
    case FrameworkKind::tvm_ffi:
      return "tvm-ffi";
    case FrameworkKind::none:
      break;
  }
  return "none";
}

std::vector<std::string> ConfigStringList::values() const {
  std::vector<std::string> values;
  for (const ConfigString& item : items) values.push_back(item.value);
  return values;
}

std::string BuildConfigFacts::module_name() const {
  std::string module = general.name ? general.name->value : "";
  std::replace(module.begin(), module.end(), '-', '_');
  return module;
}

bool BuildConfigFacts::usable() const {
  if (!present || !read_error.empty() || !parse_error.empty()) return false;
  if (edition != BuildEdition::edition5 && edition != BuildEdition::v4) return false;
  return std::none_of(schema_problems.begin(), schema_problems.end(),
                      [](const ConfigProblem& problem) { return problem.severity == Severity::error; });
}

namespace {

// build.toml may be a link, but never to a file outside the kernel directory.
bool link_stays_inside(const fs::path& file, const fs::path& kernel_dir, std::string& why) {
  std::error_code error;
  if (!fs::is_symlink(file, error)) return true;
  const fs::path target = fs::canonical(file, error);
  if (error) {
    why = "a symbolic link that does not resolve (" + error.message() + ")";
    return false;
  }
  const fs::path root = fs::canonical(kernel_dir, error);
  if (!error && is_inside(target, root)) return true;
  why = "a symbolic link to " + target.string() + ", outside the kernel directory";
  return false;
}

}  // namespace

BuildConfigFacts read_build_config(const fs::path& kernel_dir) {
  BuildConfigFacts facts;
  facts.kernel_dir = kernel_dir;
  const fs::path file = kernel_dir / "build.toml";
  std::error_code error;
  if (!fs::exists(fs::symlink_status(file, error))) return facts;
  facts.present = true;
  if (std::string why; !link_stays_inside(file, kernel_dir, why)) {
    facts.read_error = "cannot read " + file.string() + ": " + why;
    return facts;
  }
  std::string why;
  const std::optional<std::string> read = read_bounded_file(file, kMaxParsedFileBytes, why);
  if (!read) {
    facts.read_error = "cannot read " + file.string() + ": " + why;
    return facts;
  }
  const std::string& text = *read;
  toml::table root;
  try {
    root = checked_toml_parse(text, file.string());
  } catch (const toml::parse_error& parse_error) {
    facts.parse_error = std::string(parse_error.description());
    facts.parse_error_line = static_cast<int>(parse_error.source().begin.line);
    facts.parse_error_column = static_cast<int>(parse_error.source().begin.column);
    return facts;
  }
  build_config::SchemaVerdict verdict = build_config::check_schema(root);
  facts.edition = verdict.edition;
  facts.schema_problems = std::move(verdict.problems);
  read_values(root, facts);
  if (values_are_checked(facts.edition) && facts.general.present) {
    std::vector<ConfigProblem> value_problems = build_config::check_values(facts);
    facts.schema_problems.insert(facts.schema_problems.end(), value_problems.begin(), value_problems.end());
  }
  return facts;
}

}  // namespace kcheck
