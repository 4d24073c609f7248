// The upstream schema of build.toml per edition, as data, and a checker that
// walks a parsed file against it (build-toml.md §2–§6, catalogue §7.1).
#include "checker/config/build_config_schema.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>

#include "checker/config/config_values.h"
#include "checker/support/spelling.h"

namespace kcheck::build_config {
namespace {

// Editions as a bit set, so one key can be allowed or required in several.
enum Editions : unsigned { kV3 = 1, kV4 = 2, kV5 = 4, kV4Up = kV4 | kV5, kAll = kV3 | kV4 | kV5 };

enum class ValueKind {
  string,
  uint,
  string_list,
  version,
  git_url,
  kernel_name,
  backends,
  cpp_depends,
  kernel_depends,
  stable_abi,
  table,
};

struct KeySpec {
  std::string_view name;
  ValueKind kind;
  unsigned allowed = kAll;
  unsigned required = 0;
  std::span<const KeySpec> table = {};  // the keys of a sub-table (kind == table)
  std::string_view backend = {};        // component keys: the only backend that may use it
};

constexpr std::array<KeySpec, 2> kHubKeys = {{{"repo-id", ValueKind::string}, {"branch", ValueKind::string}}};
constexpr std::array<KeySpec, 4> kCudaKeys = {{{"minver", ValueKind::version},
                                               {"maxver", ValueKind::version},
                                               {"python-depends", ValueKind::string_list},
                                               {"kernel-depends", ValueKind::kernel_depends, kV5}}};
constexpr std::array<KeySpec, 2> kXpuNeuronKeys = {
    {{"python-depends", ValueKind::string_list}, {"kernel-depends", ValueKind::kernel_depends, kV5}}};
constexpr std::array<KeySpec, 1> kTpuKeys = {{{"python-depends", ValueKind::string_list}}};
constexpr std::array<KeySpec, 14> kGeneralKeys = {{
    {"name", ValueKind::kernel_name, kAll, kAll},
    {"version", ValueKind::uint, kAll, kV4Up},
    {"edition", ValueKind::uint, kV5, kV5},
    {"license", ValueKind::string, kAll, kV4Up},
    {"backends", ValueKind::backends, kAll, kAll},
    {"upstream", ValueKind::git_url},
    {"source", ValueKind::git_url, kV4Up},
    {"python-depends", ValueKind::string_list},
    {"kernel-depends", ValueKind::kernel_depends, kV5},
    {"hub", ValueKind::table, kAll, 0, kHubKeys},
    {"cuda", ValueKind::table, kAll, 0, kCudaKeys},
    {"xpu", ValueKind::table, kAll, 0, kXpuNeuronKeys},
    {"neuron", ValueKind::table, kAll, 0, kXpuNeuronKeys},
    {"tpu", ValueKind::table, kV5, 0, kTpuKeys},
}};
constexpr std::array<KeySpec, 7> kTorchKeys = {{
    {"src", ValueKind::string_list},
    {"include", ValueKind::string_list},
    {"pyext", ValueKind::string_list},
    {"minver", ValueKind::version},
    {"maxver", ValueKind::version},
    {"cxx-flags", ValueKind::string_list, kV4Up},
    {"stable-abi", ValueKind::stable_abi, kV4Up},
}};
constexpr std::array<KeySpec, 3> kTorchNoarchKeys = {{
    {"pyext", ValueKind::string_list, kV4Up},
    {"cuda_capabilities", ValueKind::string_list, kV4Up},
    {"rocm_archs", ValueKind::string_list, kV4Up},
}};
constexpr std::array<KeySpec, 4> kTvmFfiKeys = {{
    {"src", ValueKind::string_list, kAll, kAll},
    {"include", ValueKind::string_list},
    {"pyext", ValueKind::string_list},
    {"cxx-flags", ValueKind::string_list, kV4Up},
}};
// `kernel` is checked by check_components (its keys are component names).
constexpr std::array<KeySpec, 4> kTopLevelKeys = {{
    {"general", ValueKind::table, kAll, kAll, kGeneralKeys},
    {"torch", ValueKind::table, kAll, 0, kTorchKeys},
    {"torch-noarch", ValueKind::table, kV4Up, 0, kTorchNoarchKeys},
    {"tvm-ffi", ValueKind::table, kAll, 0, kTvmFfiKeys},
}};
constexpr std::array<KeySpec, 11> kComponentKeys = {{
    {"backend", ValueKind::string, kAll, kAll},
    {"src", ValueKind::string_list, kAll, kAll},
    {"depends", ValueKind::cpp_depends, kAll, kAll},
    {"include", ValueKind::string_list},
    {"cxx-flags", ValueKind::string_list},
    {"cuda-capabilities", ValueKind::string_list, kAll, 0, {}, "cuda"},
    {"cuda-flags", ValueKind::string_list, kAll, 0, {}, "cuda"},
    {"cuda-minver", ValueKind::version, kAll, 0, {}, "cuda"},
    {"rocm-archs", ValueKind::string_list, kAll, 0, {}, "rocm"},
    {"hip-flags", ValueKind::string_list, kAll, 0, {}, "rocm"},
    {"sycl-flags", ValueKind::string_list, kAll, 0, {}, "xpu"},
}};
constexpr std::array<std::string_view, 3> kFrameworkKeys = {"torch", "torch-noarch", "tvm-ffi"};

std::string edition_label(unsigned edition) { return edition == kV5 ? "edition 5" : edition == kV4 ? "v4" : "v3"; }

std::string child_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

std::string element_path(std::string_view list, std::size_t index) {
  return std::string(list) + "[" + std::to_string(index) + "]";
}

// Walks a parsed file against the schema of one edition.
class SchemaChecker {
 public:
  explicit SchemaChecker(unsigned edition) : edition_(edition) {}

  void check_root(const toml::table& root) {
    check_table(root, "", kTopLevelKeys, [&](std::string_view key, const toml::node& value) {
      if (key != "kernel") return false;
      check_components(value);
      return true;
    });
    check_framework_count(root);
  }

  const std::vector<ConfigProblem>& problems() const { return problems_; }
  const std::vector<std::string>& newer_edition_keys() const { return newer_edition_keys_; }
  bool has_errors() const {
    return std::any_of(problems_.begin(), problems_.end(),
                       [](const ConfigProblem& p) { return p.severity == Severity::error; });
  }

 private:
  void add(std::string key, const toml::source_region& where, std::string message,
           Severity severity = Severity::error) {
    problems_.push_back({std::move(key), position_of(where), std::move(message), severity});
  }

  std::string accepted_keys(std::span<const KeySpec> keys, std::string_view backend = {}) const {
    std::string list;
    for (const KeySpec& spec : keys)
      if ((spec.allowed & edition_) && (spec.backend.empty() || backend.empty() || spec.backend == backend))
        list += (list.empty() ? "" : ", ") + std::string(spec.name);
    return list;
  }

  // A key this edition does not know: a newer edition's key (warning, and
  // the file cannot be this edition), the docs' kebab spelling in
  // [torch-noarch], or simply unknown.
  void unknown_key(std::string_view table_path, const toml::key& key, std::span<const KeySpec> keys,
                   const KeySpec* spec, std::string_view backend = {}) {
    std::string path = child_path(table_path, key.str());
    if (spec && (spec->allowed & ~edition_) && spec->allowed > edition_) {
      newer_edition_keys_.push_back(path);
      add(path, key.source(),
          "`" + path + "` exists only in " + (spec->allowed & kV4 ? "v4 and edition 5" : "edition 5") +
              "; this file is read as " + edition_label(edition_),
          Severity::warning);
      return;
    }
    if (table_path == "torch-noarch" && (key.str() == "cuda-capabilities" || key.str() == "rocm-archs")) {
      std::string accepted(key.str());
      std::replace(accepted.begin(), accepted.end(), '-', '_');
      add(path, key.source(),
          "`" + path + "` is rejected by the parser: [torch-noarch] takes snake_case keys; write `" + accepted +
              "` instead");
      return;
    }
    std::string where = table_path.empty() ? "at the top level" : "in [" + std::string(table_path) + "]";
    std::vector<std::string> names;
    for (const KeySpec& known : keys)
      if ((known.allowed & edition_) && (known.backend.empty() || backend.empty() || known.backend == backend))
        names.emplace_back(known.name);
    const std::string meant = nearest_spelling(key.str(), names);
    add(path, key.source(),
        "unknown key `" + path + "` " + where + "; " + (meant.empty() ? "" : "did you mean `" + meant + "`? ") +
            "accepted " + (backend.empty() ? "" : "for backend " + std::string(backend) + " ") + "(" +
            edition_label(edition_) + "): " + accepted_keys(keys, backend));
  }

  // Checks every key of `table` against `keys`; `special` handles keys
  // outside the spec list (returns true when it did).
  template <typename Special>
  void check_table(const toml::table& table, std::string_view path, std::span<const KeySpec> keys, Special special) {
    for (const auto& [key, value] : table) {
      if (special(key.str(), value)) continue;
      // (a copy: clang 14 cannot capture a structured binding)
      auto spec =
          std::find_if(keys.begin(), keys.end(), [name = key.str()](const KeySpec& s) { return s.name == name; });
      const KeySpec* found = spec == keys.end() ? nullptr : &*spec;
      if (!found || !(found->allowed & edition_)) {
        unknown_key(path, key, keys, found);
        continue;
      }
      check_value(value, child_path(path, key.str()), *found);
    }
    report_missing(table, path, keys);
  }

  void check_table(const toml::table& table, std::string_view path, std::span<const KeySpec> keys) {
    check_table(table, path, keys, [](std::string_view, const toml::node&) { return false; });
  }

  void report_missing(const toml::table& table, std::string_view path, std::span<const KeySpec> keys,
                      std::string_view backend = {}) {
    for (const KeySpec& spec : keys)
      if ((spec.required & edition_) && (spec.backend.empty() || spec.backend == backend) &&
          !table.contains(spec.name)) {
        std::string key = child_path(path, spec.name);
        add(key, table.source(), "missing required key `" + key + "`" + (path.empty() ? " (the [general] table)" : ""));
      }
  }

  void wrong_type(const toml::node& node, const std::string& path, std::string_view expected) {
    std::string hint = node.is_floating_point() && expected.find("version") != std::string_view::npos
                           ? " (write the version in quotes)"
                           : "";
    add(path, node.source(), "`" + path + "` must be " + std::string(expected) + ", found " + type_name(node) + hint);
  }

  void check_value(const toml::node& node, const std::string& path, const KeySpec& spec) {
    switch (spec.kind) {
      case ValueKind::string:
        if (!node.is_string()) wrong_type(node, path, "a string");
        return;
      case ValueKind::uint:
        if (!node.is_integer())
          wrong_type(node, path, "a non-negative integer");
        else if (std::int64_t value = *node.value<std::int64_t>(); value < 0)
          add(path, node.source(), "`" + path + "` must be a non-negative integer, found " + std::to_string(value));
        return;
      case ValueKind::string_list:
        check_string_list(node, path, [](const std::string&, const toml::node&) {});
        return;
      case ValueKind::version:
        check_version(node, path);
        return;
      case ValueKind::git_url:
        check_grammar(node, path, is_valid_git_url);
        return;
      case ValueKind::kernel_name:
        check_grammar(node, path, is_valid_kernel_name);
        return;
      case ValueKind::backends:
        check_string_list(node, path, [&](const std::string& element, const toml::node& item) {
          check_backend_name(item, element, all_backends());
        });
        return;
      case ValueKind::cpp_depends:
        check_string_list(node, path, [&](const std::string& element, const toml::node& item) {
          if (!contains(cpp_dependencies(), *item.value<std::string>()))
            add(element, item.source(),
                "unsupported C++ dependency \"" + *item.value<std::string>() + "\" in `" + element +
                    "`; accepted: " + join(cpp_dependencies()));
        });
        return;
      case ValueKind::kernel_depends:
        check_kernel_depends(node, path);
        return;
      case ValueKind::stable_abi:
        check_stable_abi(node, path);
        return;
      case ValueKind::table:
        if (const toml::table* table = node.as_table())
          check_table(*table, path, spec.table);
        else
          wrong_type(node, path, "a table");
        return;
    }
  }

  template <typename EachElement>
  void check_string_list(const toml::node& node, const std::string& path, EachElement each) {
    const toml::array* array = node.as_array();
    if (!array) return wrong_type(node, path, "an array of strings");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& item = *array->get(i);
      std::string element = element_path(path, i);
      if (!item.is_string())
        wrong_type(item, element, "a string");
      else
        each(element, item);
    }
  }

  void check_version(const toml::node& node, const std::string& path) {
    if (!node.is_string()) return wrong_type(node, path, "a version string such as \"2.12\"");
    std::string why;
    if (!parse_config_version(*node.value<std::string>(), &why))
      add(path, node.source(), "invalid version \"" + *node.value<std::string>() + "\" in `" + path + "`: " + why);
  }

  void check_grammar(const toml::node& node, const std::string& path, bool (*valid)(std::string_view, std::string*)) {
    if (!node.is_string()) return wrong_type(node, path, "a string");
    std::string why;
    if (!valid(*node.value<std::string>(), &why))
      add(path, node.source(), "invalid value \"" + *node.value<std::string>() + "\" in `" + path + "`: " + why);
  }

  void check_backend_name(const toml::node& node, const std::string& path, std::span<const std::string_view> accepted) {
    const std::string name = *node.value<std::string>();
    if (!contains(accepted, name))
      add(path, node.source(),
          "unknown backend \"" + name + "\" in `" + path + "`; accepted (lowercase): " + join(accepted));
  }

  void check_kernel_depends(const toml::node& node, const std::string& path) {
    const toml::array* array = node.as_array();
    if (!array) return wrong_type(node, path, "an array of inline tables");
    static constexpr std::array<KeySpec, 3> kDependencyKeys = {
        {{"repo-id", ValueKind::string, kAll, kAll}, {"version", ValueKind::uint}, {"revision", ValueKind::string}}};
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& item = *array->get(i);
      std::string element = element_path(path, i);
      const toml::table* table = item.as_table();
      if (!table) {
        wrong_type(item, element, "an inline table { repo-id = ..., version = ... }");
        continue;
      }
      check_table(*table, element, kDependencyKeys);
      bool has_version = table->contains("version"), has_revision = table->contains("revision");
      if (has_version && has_revision)
        add(element, item.source(), "`" + element + "`: `version` and `revision` are mutually exclusive");
      if (!has_version && !has_revision)
        add(element, item.source(), "`" + element + "`: either `version` or `revision` must be specified");
    }
  }

  void check_stable_abi(const toml::node& node, const std::string& path) {
    if (node.is_string()) return check_version(node, path);
    const toml::table* table = node.as_table();
    if (!table) return wrong_type(node, path, "a version string or a table of backend = version");
    if (!(edition_ & kV5)) {
      newer_edition_keys_.push_back(path);
      add(path, node.source(),
          "the table form of `" + path + "` exists only in edition 5; this file is read as " + edition_label(edition_),
          Severity::warning);
      return;
    }
    for (const auto& [key, value] : *table) {
      std::string entry = child_path(path, key.str());
      if (!contains(all_backends(), key.str()))
        add(entry, key.source(),
            "unknown backend \"" + std::string(key.str()) + "\" as a key of `" + path +
                "`; accepted: " + join(all_backends()));
      else
        check_version(value, entry);
    }
  }

  void check_components(const toml::node& node) {
    const toml::table* kernel = node.as_table();
    if (!kernel) {
      std::string hint = node.is_array_of_tables() ? " (write each component as [kernel.<name>], not [[kernel]])" : "";
      add("kernel", node.source(),
          "`kernel` must be a table of [kernel.<name>] tables, found " + type_name(node) + hint);
      return;
    }
    for (const auto& [name, value] : *kernel) {
      std::string path = child_path("kernel", name.str());
      if (const toml::table* component = value.as_table())
        check_component(*component, path);
      else
        wrong_type(value, path, "a table [" + path + "]");
    }
  }

  // Returns the component's backend when it is a valid component backend.
  std::string check_component_backend(const toml::table& component, const std::string& path) {
    const toml::node* backend = component.get("backend");
    if (!backend || !backend->is_string()) return "";  // reported as missing / wrong type
    std::string name = *backend->value<std::string>();
    if (contains(component_backends(), name)) return name;
    std::string element = path + ".backend";
    if (contains(all_backends(), name))
      add(element, backend->source(),
          "backend \"" + name + "\" of `" + path +
              "` is noarch-only and cannot have compiled components; accepted: " + join(component_backends()));
    else
      add(element, backend->source(),
          "unknown backend \"" + name + "\" in `" + element + "`; accepted (lowercase): " + join(component_backends()));
    return "";
  }

  void check_component(const toml::table& component, const std::string& path) {
    std::string backend = check_component_backend(component, path);
    for (const auto& [key, value] : component) {
      auto spec = std::find_if(kComponentKeys.begin(), kComponentKeys.end(),
                               [name = key.str()](const KeySpec& s) { return s.name == name; });
      if (spec == kComponentKeys.end()) {
        unknown_key(path, key, kComponentKeys, nullptr, backend);
        continue;
      }
      std::string key_path = child_path(path, key.str());
      if (!spec->backend.empty() && !backend.empty() && spec->backend != backend) {
        add(key_path, key.source(),
            "`" + std::string(key.str()) + "` applies only to " + std::string(spec->backend) + " components; `" + path +
                "` has backend = \"" + backend + "\"");
        continue;
      }
      check_value(value, key_path, *spec);
    }
    report_missing(component, path, kComponentKeys, backend);
  }

  // Reported at the second framework section in file order.
  void check_framework_count(const toml::table& root) {
    std::vector<std::pair<ConfigPosition, std::string>> present;
    for (std::string_view framework : kFrameworkKeys)
      if (const toml::node* node = root.get(framework))
        present.emplace_back(position_of(node->source()), "[" + std::string(framework) + "]");
    std::sort(present.begin(), present.end(), [](const auto& a, const auto& b) {
      return std::pair(a.first.line, a.first.column) < std::pair(b.first.line, b.first.column);
    });
    if (present.size() > 1) {
      std::string list;
      for (const auto& [position, name] : present) list += (list.empty() ? "" : ", ") + name;
      problems_.push_back(
          {"", present[1].first,
           "more than one framework section (" + list + "): keep exactly one of [torch], [torch-noarch], [tvm-ffi]"});
    }
    if (present.empty() && !(edition_ & kV3))
      add("", root.source(), "no framework section: add exactly one of [torch], [torch-noarch] or [tvm-ffi]");
  }

  unsigned edition_;
  std::vector<ConfigProblem> problems_;
  std::vector<std::string> newer_edition_keys_;
};

SchemaVerdict verdict(BuildEdition edition, std::string key, const toml::source_region& where, std::string message) {
  return {edition, {{std::move(key), position_of(where), std::move(message), Severity::error}}};
}

SchemaVerdict check_edition_5(const toml::table& root) {
  SchemaChecker checker(kV5);
  checker.check_root(root);
  return {BuildEdition::edition5, checker.problems()};
}

// A file without `edition`: v4 if it matches, else v3, else neither (§2).
SchemaVerdict check_legacy(const toml::table& root, const toml::table& general) {
  SchemaChecker v4(kV4);
  v4.check_root(root);
  if (!v4.has_errors()) {
    SchemaVerdict result{BuildEdition::v4, v4.problems()};
    if (v4.newer_edition_keys().empty()) {
      result.problems.push_back({"general", position_of(general.source()),
                                 "legacy v4 format (no `edition`): upstream accepts it, auto-upgraded in memory with a "
                                 "warning; run `kernel-builder update-build` to rewrite it as edition 5",
                                 Severity::warning});
    } else {
      std::string keys;
      for (const std::string& key : v4.newer_edition_keys()) keys += (keys.empty() ? "" : ", ") + key;
      result.problems.push_back({"general", position_of(general.source()),
                                 "no `edition` but edition-5 features are used (" + keys +
                                     "): upstream rejects the file (it matches neither v4 nor v3); add `edition = 5` "
                                     "to [general]"});
    }
    return result;
  }
  SchemaChecker v3(kV3);
  v3.check_root(root);
  if (!v3.has_errors() && v3.newer_edition_keys().empty()) {
    std::string license = general.contains("license") ? "" : " (add `license` first: the migration needs it)";
    return verdict(BuildEdition::v3, "general", general.source(),
                   "legacy v3 format: the builder rejects it; run `kernel-builder update-build` to migrate it to "
                   "edition 5" +
                       license);
  }
  return {BuildEdition::unknown, v4.problems()};
}

}  // namespace

ConfigPosition position_of(const toml::source_region& source) {
  return {static_cast<int>(source.begin.line), static_cast<int>(source.begin.column)};
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return node.is_array_of_tables() ? "an array of tables" : "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

SchemaVerdict check_schema(const toml::table& root) {
  const toml::node* general_node = root.get("general");
  if (general_node && !general_node->is_table())
    return verdict(BuildEdition::unknown, "general", general_node->source(),
                   "invalid `general`: it must be a table ([general]), found " + type_name(*general_node));
  if (!general_node) {
    SchemaChecker v4(kV4);  // reports the missing [general] and anything else
    v4.check_root(root);
    return {BuildEdition::unknown, v4.problems()};
  }
  const toml::table& general = *general_node->as_table();
  if (const toml::node* edition = general.get("edition")) {
    std::optional<std::int64_t> value = edition->is_integer() ? edition->value<std::int64_t>() : std::nullopt;
    if (!value || *value < 0 || *value > std::numeric_limits<std::uint32_t>::max())
      return verdict(BuildEdition::unknown, "general.edition", edition->source(),
                     "invalid `general.edition`: it must be the integer 5, found " + type_name(*edition));
    if (*value != 5)
      return verdict(BuildEdition::unsupported, "general.edition", edition->source(),
                     "unsupported build edition " + std::to_string(*value) +
                         ": the current builder reads edition 5 only (a file without `edition` is read as v4); write "
                         "`edition = 5` in the edition-5 format");
    return check_edition_5(root);
  }
  if (!general.contains("backends"))
    return verdict(BuildEdition::pre_v3, "general.backends", general.source(),
                   "pre-v3 format (no `general.backends`, as in v1/v2): the builder rejects it; regenerate the "
                   "configuration in the edition-5 format (general.edition = 5, backends, a framework section)");
  return check_legacy(root, general);
}

}  // namespace kcheck::build_config
