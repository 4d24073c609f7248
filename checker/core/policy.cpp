#include "checker/core/policy.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "checker/support/checked_toml.h"
#include "checker/support/embedded_files.h"
#include "checker/support/every_member.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

// Where the embedded policies and their data/ sit among the embedded files
// (rules/policies/ in the source tree; see rules/README.md).
constexpr std::string_view kEmbeddedPolicyDirectory = "rules/policies/";

// Reads a policy document, resolving the data files it names either next to
// the policy file or among the embedded rules/policies/.
class PolicyReader {
 public:
  PolicyReader(const toml::table& root, std::string source, std::optional<fs::path> directory)
      : root_(root), source_(std::move(source)), directory_(std::move(directory)) {}

  // Each member of the policy is read in one line below, bound by position
  // (KCHECK_BIND_EVERY_MEMBER, as the facts cache's codec binds its structs):
  // a member added to Policy, NativePolicy or PythonPolicy and not read here
  // does not compile.
  Policy read() {
    Policy policy;
    KCHECK_BIND_EVERY_MEMBER(policy, name, description, source, native, python, package_layout, required_variants,
                             torch_shim_versions, cuda_supported_capabilities, cuda_toolkit_defaults,
                             rocm_supported_archs, accepted_licenses, suppression_code_prefixes_allowed,
                             require_verified_ops, rule_severity);
    source = source_;
    name = required_string("policy.name");
    description = optional_string("policy.description");
    native = read_native();
    python = read_python();
    package_layout = this->package_layout();
    required_variants = required_variant_sets();
    torch_shim_versions = version_map_from_data(required_string("torch.stable-abi-shims"), "shims");
    cuda_supported_capabilities = string_list("cuda.supported-capabilities");
    cuda_toolkit_defaults = this->cuda_toolkit_defaults();
    rocm_supported_archs = string_list("rocm.supported-archs");
    for (const std::string& license : string_list("licenses.accepted")) accepted_licenses.insert(license);
    suppression_code_prefixes_allowed = optional_bool("suppressions.code-prefixes", false);
    require_verified_ops = optional_bool("harness.require-verified-ops", false);
    rule_severity = this->rule_severity();
    return policy;
  }

 private:
  // [severity]: KP006 = "error": a rule's severity where the rule gives none.
  std::map<std::string, Severity, std::less<>> rule_severity() const {
    std::map<std::string, Severity, std::less<>> severities;
    if (!at("severity")) return severities;
    const toml::table* table = at("severity").as_table();
    if (!table) fail("severity", "must be a table of rule codes");
    for (const auto& [code, value] : *table) {
      const std::string key = "severity." + std::string(code.str());
      const std::optional<std::string> name = value.value<std::string>();
      const std::optional<Severity> severity = name ? parse_severity(*name) : std::nullopt;
      if (!severity) fail(key, "must be \"error\", \"warning\" or \"note\"");
      severities.emplace(std::string(code.str()), *severity);
    }
    return severities;
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw PolicyError("invalid policy " + source_ + ": key '" + key + "' " + what);
  }

  toml::node_view<const toml::node> at(const std::string& dotted_key) const { return root_.at_path(dotted_key); }

  std::string required_string(const std::string& key) const {
    auto value = at(key).value<std::string>();
    if (!value) fail(key, at(key) ? "must be a string" : "is missing");
    return *value;
  }

  std::string optional_string(const std::string& key) const {
    if (!at(key)) return {};
    return required_string(key);
  }

  bool optional_bool(const std::string& key, bool fallback) const {
    if (!at(key)) return fallback;
    auto value = at(key).value<bool>();
    if (!value) fail(key, "must be true or false");
    return *value;
  }

  std::vector<std::string> string_list(const std::string& key, const toml::node* node = nullptr) const {
    const toml::node* list_node = node ? node : at(key).node();
    if (!list_node) fail(key, "is missing");
    const toml::array* array = list_node->as_array();
    if (!array) fail(key, "must be an array of strings");
    std::vector<std::string> values;
    for (const toml::node& item : *array) {
      auto text = item.value<std::string>();
      if (!text) fail(key, "must contain only strings");
      values.push_back(*text);
    }
    return values;
  }

  // [[cuda.toolkit-defaults]]: newest toolkit first, as the list is searched.
  std::vector<CudaToolkitDefaults> cuda_toolkit_defaults() const {
    const std::string key = "cuda.toolkit-defaults";
    const toml::array* tables = at(key).as_array();
    if (!tables || tables->empty()) fail(key, "must be a non-empty array of tables");
    std::vector<CudaToolkitDefaults> defaults;
    for (const toml::node& item : *tables) {
      const toml::table* table = item.as_table();
      if (!table) fail(key, "must contain only tables");
      defaults.push_back({version(key + ".min-toolkit", table->get("min-toolkit")),
                          string_list(key + ".capabilities", table->get("capabilities"))});
      if (defaults.size() > 1 && !(defaults.back().min_toolkit < defaults[defaults.size() - 2].min_toolkit))
        fail(key, "must list toolkits newest first");
    }
    return defaults;
  }

  Version version(const std::string& key, const toml::node* node = nullptr) const {
    const toml::node* value_node = node ? node : at(key).node();
    auto text = value_node ? value_node->value<std::string>() : std::nullopt;
    if (!text) fail(key, value_node ? "must be a version string such as \"2.28\"" : "is missing");
    auto parsed = Version::parse(*text);
    if (!parsed) fail(key, "is not a dotted numeric version: \"" + *text + "\"");
    return *parsed;
  }

  const toml::table& table(const std::string& key) const {
    const toml::table* found = at(key).as_table();
    if (!found) fail(key, at(key) ? "must be a table" : "is missing");
    return *found;
  }

  NativePolicy read_native() const {
    NativePolicy native;
    KCHECK_BIND_EVERY_MEMBER(native, symbol_ceilings, cxx_runtime, system_libraries, torch_library_patterns,
                             allowed_named_versions, named_version_releases, blacklisted_symbols, macos_minimum);
    std::string runtime = required_string("native.cxx-runtime");
    if (runtime == "dynamic-within-ceilings")
      cxx_runtime = CxxRuntimePolicy::dynamic_within_ceilings;
    else if (runtime == "static-only")
      cxx_runtime = CxxRuntimePolicy::static_only;
    else
      fail("native.cxx-runtime", "must be \"dynamic-within-ceilings\" or \"static-only\", not \"" + runtime + "\"");
    for (auto& lib : string_list("native.system-libraries")) system_libraries.insert(lib);
    torch_library_patterns = string_list("native.torch-libraries");
    if (at("native.allowed-named-versions"))
      for (auto& name : string_list("native.allowed-named-versions")) allowed_named_versions.insert(name);
    if (at("native.named-version-releases"))
      for (const auto& [name, value] : table("native.named-version-releases")) {
        const std::string key = "native.named-version-releases." + std::string(name.str());
        const auto node = value.value<std::string>();
        const auto release = node ? parse_symbol_version(*node) : std::nullopt;
        if (!release) fail(key, "must name a numbered version node such as \"GLIBC_2.36\"");
        named_version_releases[std::string(name.str())] = *release;
      }
    for (const auto& [arch, families] : table("native.symbol-ceilings")) {
      const std::string arch_key = "native.symbol-ceilings." + std::string(arch.str());
      const toml::table* family_table = families.as_table();
      if (!family_table) fail(arch_key, "must be a table of family = \"version\"");
      for (const auto& [family, value] : *family_table)
        symbol_ceilings[std::string(arch.str())][std::string(family.str())] =
            version(arch_key + "." + std::string(family.str()), &value);
    }
    if (at("native.blacklisted-symbols"))
      for (const auto& [library, symbols] : table("native.blacklisted-symbols"))
        for (auto& symbol : string_list("native.blacklisted-symbols." + std::string(library.str()), &symbols))
          blacklisted_symbols[std::string(library.str())].insert(symbol);
    if (at("native.macos-minimum"))
      for (const auto& [backend, value] : table("native.macos-minimum"))
        macos_minimum[std::string(backend.str())] =
            version("native.macos-minimum." + std::string(backend.str()), &value);
    return native;
  }

  std::vector<AllowedPythonDependency> dependencies(const std::string& key) const {
    std::vector<AllowedPythonDependency> allowed;
    for (const auto& [name, imports] : table(key))
      allowed.push_back({std::string(name.str()), string_list(key + "." + std::string(name.str()), &imports)});
    return allowed;
  }

  PythonPolicy read_python() const {
    PythonPolicy python;
    KCHECK_BIND_EVERY_MEMBER(python, floor, stable_abi_symbols, stdlib_modules, torch_bundled_modules,
                             general_dependencies, backend_dependencies);
    floor = version("python.floor");
    stable_abi_symbols = version_map_from_data(required_string("python.stable-abi"), "symbols");
    nlohmann::json stdlib = data_file(required_string("python.stdlib-modules"));
    try {
      for (const auto& module : stdlib.at("modules")) stdlib_modules.insert(module.get<std::string>());
    } catch (const nlohmann::json::exception&) {
      fail("python.stdlib-modules", "names a file without a \"modules\" list of strings");
    }
    if (at("python.torch-bundled"))
      for (const auto& [backend, modules] : table("python.torch-bundled"))
        torch_bundled_modules[std::string(backend.str())] =
            string_list("python.torch-bundled." + std::string(backend.str()), &modules);
    general_dependencies = dependencies("python.dependencies.general");
    if (at("python.dependencies.backends"))
      for (const auto& [backend, _] : table("python.dependencies.backends"))
        backend_dependencies[std::string(backend.str())] =
            dependencies("python.dependencies.backends." + std::string(backend.str()));
    return python;
  }

  PackageLayout package_layout() const {
    std::string package = required_string("layout.package");
    if (package == "top-level") return PackageLayout::top_level;
    if (package == "nested") return PackageLayout::nested;
    fail("layout.package", "must be \"top-level\" or \"nested\", not \"" + package + "\"");
  }

  std::vector<RequiredVariantSet> required_variant_sets() const {
    std::vector<RequiredVariantSet> sets;
    const toml::array* array = at("required-variants").as_array();
    if (!array) fail("required-variants", "must be an array of tables ([[required-variants]])");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string key = "required-variants[" + std::to_string(i) + "]";
      const toml::table* item = (*array)[i].as_table();
      if (!item) fail(key, "must be a table");
      auto system = (*item)["system"].value<std::string>();
      auto backend = (*item)["backend"].value<std::string>();
      if (!system) fail(key + ".system", "must be a string");
      if (!backend) fail(key + ".backend", "must be a string");
      const toml::node* variants = (*item).get("variants");
      if (!variants) fail(key + ".variants", "is missing");
      sets.push_back({*system, *backend, string_list(key + ".variants", variants)});
    }
    return sets;
  }

  nlohmann::json data_file(const std::string& relative) const {
    std::string text;
    if (directory_ && fs::exists(*directory_ / relative)) {
      std::ifstream in(*directory_ / relative, std::ios::binary);
      std::stringstream buffer;
      buffer << in.rdbuf();
      text = buffer.str();
    } else if (auto embedded = find_embedded_file(std::string(kEmbeddedPolicyDirectory) + relative)) {
      text = std::string(*embedded);
    } else {
      throw PolicyError("invalid policy " + source_ + ": data file '" + relative +
                        "' found neither next to the policy nor among the embedded rules");
    }
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
      throw PolicyError("invalid policy " + source_ + ": data file '" + relative + "' is not JSON: " + error.what());
    }
  }

  std::map<std::string, Version, std::less<>> version_map_from_data(const std::string& relative,
                                                                    const std::string& member) const {
    std::map<std::string, Version, std::less<>> versions;
    nlohmann::json data = data_file(relative);
    if (!data.contains(member) || !data[member].is_object())
      throw PolicyError("invalid policy " + source_ + ": data file '" + relative + "' has no \"" + member +
                        "\" object");
    for (const auto& [name, value] : data[member].items()) {
      auto parsed = value.is_string() ? Version::parse(value.get<std::string>()) : std::nullopt;
      if (!parsed)
        throw PolicyError("invalid policy " + source_ + ": data file '" + relative + "' has a bad version for " + name);
      versions.emplace(name, *parsed);
    }
    return versions;
  }

  const toml::table& root_;
  std::string source_;
  std::optional<fs::path> directory_;
};

Policy parse_policy_document(std::string_view text, const std::string& source, std::optional<fs::path> directory) {
  toml::table root;
  try {
    root = checked_toml_parse(text, source);
  } catch (const toml::parse_error& error) {
    std::ostringstream message;
    message << "invalid policy " << source << ": not valid TOML at line " << error.source().begin.line << ", column "
            << error.source().begin.column << ": " << error.description();
    throw PolicyError(message.str());
  }
  return PolicyReader(root, source, std::move(directory)).read();
}

}  // namespace

std::vector<std::string> embedded_policy_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_files()) {
    std::string_view path = file.path;
    if (!path.starts_with(kEmbeddedPolicyDirectory) || !path.ends_with(".toml")) continue;
    path.remove_prefix(kEmbeddedPolicyDirectory.size());
    path.remove_suffix(std::string_view(".toml").size());
    if (path.find('/') == std::string_view::npos) names.emplace_back(path);
  }
  return names;
}

Policy parse_policy(std::string_view toml_text, const std::string& source) {
  return parse_policy_document(toml_text, source, std::nullopt);
}

Policy load_policy(const std::string& name_or_path) {
  std::string embedded_path = std::string(kEmbeddedPolicyDirectory) + name_or_path + ".toml";
  if (auto embedded = find_embedded_file(embedded_path))
    return parse_policy_document(*embedded, "embedded:" + embedded_path, std::nullopt);
  fs::path path(name_or_path);
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    std::string known;
    for (const auto& name : embedded_policy_names()) known += (known.empty() ? "" : ", ") + name;
    throw PolicyError("unknown policy '" + name_or_path + "': neither an embedded policy (" + known +
                      ") nor a readable file");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in.good() && !in.eof()) throw PolicyError("cannot read policy file " + path.string());
  return parse_policy_document(buffer.str(), path.string(), path.parent_path());
}

}  // namespace kcheck
