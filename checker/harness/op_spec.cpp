#include "checker/harness/op_spec.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "checker/support/bounded_read.h"
#include "checker/support/checked_toml.h"
#include "checker/support/embedded_files.h"
#include "checker/support/text_scan.h"
#include "reference/ops/baseline_forms.h"

namespace kcheck {
namespace fs = std::filesystem;

namespace {

std::string where(const std::string& source, const toml::node* node) {
  if (node && node->source().begin.line) return source + ":" + std::to_string(node->source().begin.line);
  return source;
}

[[noreturn]] void fail(const std::string& source, const toml::node* node, const std::string& message) {
  throw OpSpecError(where(source, node) + ": " + message);
}

// "silu_and_mul, gelu_and_mul, ...": what an op spec's `baseline` may name.
std::string known_baselines() {
  std::string names;
  for (const reference::BaselineForm& form : reference::baseline_forms())
    names += (names.empty() ? "" : ", ") + std::string(form.name);
  return names;
}

std::string required_string(const toml::table& table, const std::string& key, const std::string& source) {
  auto value = table[key].value<std::string>();
  if (!value || value->empty()) fail(source, &table, "'" + key + "' must be a non-empty string");
  return *value;
}

std::vector<std::string> string_list(const toml::node* node, const std::string& key, const std::string& source) {
  std::vector<std::string> values;
  if (!node) return values;
  const toml::array* array = node->as_array();
  if (!array) fail(source, node, "'" + key + "' must be a list of strings");
  for (const toml::node& item : *array) {
    auto text = item.value<std::string>();
    if (!text) fail(source, &item, "'" + key + "' must be a list of strings");
    values.push_back(*text);
  }
  return values;
}

double number(const toml::node& node, const std::string& key, const std::string& source) {
  if (auto value = node.value<double>()) return *value;
  fail(source, &node, "'" + key + "' must be a number");
}

std::map<std::string, OpTolerance> read_tolerance(const toml::node* node, const std::string& source) {
  std::map<std::string, OpTolerance> tolerance;
  if (!node) return tolerance;
  const toml::table* table = node->as_table();
  if (!table) fail(source, node, "'tolerance' must be a table of {rtol, atol} by dtype");
  for (const auto& [dtype, entry] : *table) {
    const toml::table* pair = entry.as_table();
    if (!pair || !(*pair)["rtol"] || !(*pair)["atol"])
      fail(source, &entry, "tolerance." + std::string(dtype.str()) + " must be {rtol = ..., atol = ...}");
    tolerance[std::string(dtype.str())] = {number(*(*pair)["rtol"].node(), "rtol", source),
                                           number(*(*pair)["atol"].node(), "atol", source)};
  }
  return tolerance;
}

bool is_identifier(std::string_view text);  // below, with the reference forms

std::vector<std::pair<std::string, std::map<std::string, std::int64_t>>> read_sizes(const toml::node* node,
                                                                                    const std::string& source) {
  std::vector<std::pair<std::string, std::map<std::string, std::int64_t>>> sizes;
  if (!node) return sizes;
  const toml::table* table = node->as_table();
  if (!table) fail(source, node, "'sizes' must be a table of named sizes");
  for (const auto& [name, entry] : *table) {
    if (!is_identifier(name.str()))
      fail(source, &entry, "size name '" + std::string(name.str()) + "' must be an identifier (letters, digits, _)");
    const toml::table* values = entry.as_table();
    if (!values) fail(source, &entry, "size '" + std::string(name.str()) + "' must be a table like {n = 7, d = 129}");
    std::map<std::string, std::int64_t> size;
    for (const auto& [variable, value] : *values) {
      // Integers only: toml++ converts a float out of int64's range with
      // undefined behaviour (found by fuzz_ops_spec).
      const std::optional<std::int64_t> extent =
          value.is_integer() ? std::optional<std::int64_t>(value.as_integer()->get()) : std::nullopt;
      if (!extent || *extent <= 0)
        fail(source, &value, "size variable '" + std::string(variable.str()) + "' must be a positive integer");
      size[std::string(variable.str())] = *extent;
    }
    sizes.emplace_back(std::string(name.str()), std::move(size));
  }
  return sizes;
}

OpArgSpec read_arg(const toml::node& node, const std::string& source) {
  const toml::table* table = node.as_table();
  if (!table) fail(source, &node, "each of 'args' must be a table");
  OpArgSpec arg;
  arg.name = required_string(*table, "name", source);
  if (!is_reference_argument_name(arg.name))
    fail(
        source, &node,
        "argument name '" + arg.name + "' must be an identifier (letters, digits, _; no leading _; no Python keyword)");
  if (const toml::node* shape = (*table)["shape"].node()) {
    arg.is_tensor = true;
    arg.shape = string_list(shape, "shape", source);
    arg.output = (*table)["output"].value_or(false);
    if (const toml::node* range = (*table)["range"].node()) {
      const toml::array* bounds = range->as_array();
      if (!bounds || bounds->size() != 2) fail(source, range, "'range' must be [low, high]");
      arg.low = number(*bounds->get(0), "range", source);
      arg.high = number(*bounds->get(1), "range", source);
      if (!(arg.low < arg.high)) fail(source, range, "'range' must have low < high");
    }
  } else if (const toml::node* value = (*table)["value"].node()) {
    arg.integer = value->is_integer();
    arg.value = number(*value, "value", source);
  } else {
    fail(source, &node, "argument '" + arg.name + "' needs a 'shape' (tensor) or a 'value' (float)");
  }
  return arg;
}

constexpr std::size_t kMaxReferenceText = 4000;

// The names reference_ops.cpp defines, as the built-in specs use them.
const std::set<std::string>& reference_names() {
  static const std::set<std::string> names = [] {
    std::set<std::string> found;
    for (const EmbeddedFile& file : embedded_files()) {
      std::string path(file.path);
      if (path.rfind("reference/ops/", 0) != 0 || !path.ends_with(".toml")) continue;
      for (const OpSpec& spec : parse_op_specs(file.content, "embedded:" + path).ops)
        if (spec.reference_kind == worker::ReferenceKind::builtin) found.insert(spec.reference);
    }
    return found;
  }();
  return names;
}

bool is_identifier(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// A python: reference's FILE must be a regular file inside the repository,
// after every link is followed.
// `relative` resolved, when it is a regular file inside `repository` after
// every link is followed; empty otherwise.
fs::path regular_file_inside(const fs::path& repository, const fs::path& relative) {
  std::error_code root_error;
  std::error_code path_error;
  const fs::path root = fs::canonical(repository, root_error);
  fs::path path = fs::canonical(repository / relative, path_error);
  if (root_error || path_error || !is_inside(path, root) || path == root || !fs::is_regular_file(path, path_error))
    return {};
  return path;
}

void require_repository_file(const fs::path& repository, const fs::path& spec_file, const OpSpec& spec,
                             const std::string& reference) {
  const std::string target = reference.substr(7);
  const std::string file = target.substr(0, target.rfind(':'));
  if (regular_file_inside(repository, file).empty())
    throw OpSpecError(spec_file.string() + ": op '" + spec.name + "': its file '" + file +
                      "' is no file inside the repository");
}

}  // namespace

bool is_reference_argument_name(const std::string& name) {
  static const std::set<std::string> keywords = {
      "False",    "None",   "True",  "and",  "as",     "assert",   "async",   "await", "break", "class",
      "continue", "def",    "del",   "elif", "else",   "except",   "finally", "for",   "from",  "global",
      "if",       "import", "in",    "is",   "lambda", "nonlocal", "not",     "or",    "pass",  "raise",
      "return",   "try",    "while", "with", "yield",  "torch",    "F",       "math"};
  return is_identifier(name) && name[0] != '_' && !keywords.contains(name);
}

worker::ReferenceKind reference_kind_of(const std::string& reference) {
  if (reference.size() > kMaxReferenceText)
    throw OpSpecError("the reference is longer than " + std::to_string(kMaxReferenceText) + " characters");
  if (std::any_of(reference.begin(), reference.end(), [](unsigned char c) { return c < 0x20 || c >= 0x7f; }))
    throw OpSpecError("the reference holds a control or non-ASCII character");
  if (reference.rfind("python:", 0) == 0) {
    const std::string target = reference.substr(7);
    const auto colon = target.rfind(':');
    const std::string file = colon == std::string::npos ? "" : target.substr(0, colon);
    const std::string function = colon == std::string::npos ? "" : target.substr(colon + 1);
    if (file.empty() || !is_identifier(function)) throw OpSpecError("'" + reference + "' is not python:FILE:FUNCTION");
    const fs::path path(file);
    if (path.is_absolute() || std::any_of(path.begin(), path.end(), [](const fs::path& part) { return part == ".."; }))
      throw OpSpecError("'" + file + "' must be a path inside the repository (relative, without '..')");
    if (path.extension() != ".py") throw OpSpecError("'" + file + "' is no Python file (.py)");
    return worker::ReferenceKind::python;
  }
  return is_identifier(reference) ? worker::ReferenceKind::builtin : worker::ReferenceKind::expression;
}

const OpSpec* OpSpecSet::find(const std::string& name) const {
  for (const OpSpec& spec : ops)
    if (spec.name == name) return &spec;
  return nullptr;
}

void OpSpecSet::add(OpSpec spec) {
  for (OpSpec& existing : ops)
    if (existing.name == spec.name) {
      existing = std::move(spec);
      return;
    }
  ops.push_back(std::move(spec));
}

std::int64_t evaluate_dimension(const std::string& expression, const std::map<std::string, std::int64_t>& size) {
  std::int64_t product = 1;
  std::stringstream terms(expression);
  std::string term;
  bool any = false;
  while (std::getline(terms, term, '*')) {
    term.erase(std::remove_if(term.begin(), term.end(), [](unsigned char c) { return std::isspace(c); }), term.end());
    if (term.empty()) throw OpSpecError("empty factor in dimension '" + expression + "'");
    std::int64_t factor = 0;
    if (std::all_of(term.begin(), term.end(), [](unsigned char c) { return std::isdigit(c); })) {
      const std::optional<std::uint64_t> number =
          term.size() > 12 ? std::nullopt : text::parse_decimal<std::uint64_t>(term);
      if (!number) throw OpSpecError("dimension '" + expression + "' is too large");
      factor = static_cast<std::int64_t>(*number);
    } else if (auto found = size.find(term); found != size.end()) {
      factor = found->second;
    } else {
      throw OpSpecError("dimension '" + expression + "' uses '" + term + "', which the size does not define");
    }
    if (factor <= 0 || product > (std::int64_t{1} << 40) / factor)
      throw OpSpecError("dimension '" + expression + "' is not a positive size below 2^40");
    product *= factor;
    any = true;
  }
  if (!any) throw OpSpecError("empty dimension");
  return product;
}

OpSpecSet parse_op_specs(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = checked_toml_parse(text, source);
  } catch (const toml::parse_error& error) {
    throw OpSpecError(source + ":" + std::to_string(error.source().begin.line) + ": " +
                      std::string(error.description()));
  }
  const toml::table* defaults = root["defaults"].as_table();
  auto from_op_or_defaults = [&](const toml::table& op, const char* key) -> const toml::node* {
    if (const toml::node* own = op[key].node()) return own;
    return defaults ? (*defaults)[key].node() : nullptr;
  };
  OpSpecSet set;
  const toml::array* ops = root["op"].as_array();
  if (!ops) fail(source, &root, "no [[op]] entries");
  for (const toml::node& node : *ops) {
    const toml::table* table = node.as_table();
    if (!table) fail(source, &node, "[[op]] must be a table");
    OpSpec spec;
    spec.source = source;
    spec.name = required_string(*table, "name", source);
    spec.schema = required_string(*table, "schema", source);
    spec.reference = required_string(*table, "reference", source);
    try {
      spec.reference_kind = reference_kind_of(spec.reference);
    } catch (const OpSpecError& error) {
      fail(source, table, "op '" + spec.name + "': " + error.what());
    }
    if ((*table)["reference-dtype"]) spec.reference_dtype = required_string(*table, "reference-dtype", source);
    if (spec.reference_dtype != "float64" && spec.reference_dtype != "native")
      fail(source, table, "op '" + spec.name + "': reference-dtype must be \"float64\" or \"native\"");
    if (spec.reference_kind == worker::ReferenceKind::builtin && source.rfind("embedded:", 0) != 0 &&
        !reference_names().contains(spec.reference))
      fail(source, table,
           "op '" + spec.name + "': '" + spec.reference +
               "' is no built-in reference; a reference of your own is \"python:FILE:FUNCTION\" or a Torch "
               "expression over the argument names (reference/ops/README.md)");
    if ((*table)["baseline"]) {
      spec.baseline = required_string(*table, "baseline", source);
      try {
        spec.baseline_kind = reference_kind_of(spec.baseline);
      } catch (const OpSpecError& error) {
        fail(source, table, "op '" + spec.name + "': baseline: " + error.what());
      }
    }
    if (!spec.baseline.empty() && spec.baseline_kind == worker::ReferenceKind::builtin &&
        !reference::find_baseline_form(spec.baseline))
      fail(source, table,
           "op '" + spec.name + "': no baseline named '" + spec.baseline + "' (reference/ops/baseline_forms.cpp has " +
               known_baselines() + "; a baseline of your own is \"python:FILE:FUNCTION\" or a Torch expression)");
    if (spec.schema.rfind(spec.name + "(", 0) != 0)
      fail(source, table, "schema of '" + spec.name + "' must start with '" + spec.name + "('");
    const toml::array* args = (*table)["args"].as_array();
    if (!args || args->empty()) fail(source, table, "op '" + spec.name + "' needs 'args'");
    for (const toml::node& arg : *args) spec.args.push_back(read_arg(arg, source));
    spec.dtypes = string_list(from_op_or_defaults(*table, "dtypes"), "dtypes", source);
    for (const std::string& dtype : spec.dtypes)
      if (dtype != "float32" && dtype != "float16" && dtype != "bfloat16" && dtype != "float64")
        fail(source, table,
             "op '" + spec.name + "': dtype '" + dtype + "' is not float32, float16, bfloat16 or float64");
    spec.sizes = read_sizes(from_op_or_defaults(*table, "sizes"), source);
    spec.tolerance = read_tolerance(from_op_or_defaults(*table, "tolerance"), source);
    spec.bytes = string_list((*table)["bytes"].node(), "bytes", source);
    if (spec.dtypes.empty() || spec.sizes.empty())
      fail(source, table, "op '" + spec.name + "' needs dtypes and sizes (its own or in [defaults])");
    for (const std::string& dtype : spec.dtypes)
      if (!spec.tolerance.contains(dtype)) fail(source, table, "op '" + spec.name + "' has no tolerance for " + dtype);
    for (const std::string& name : spec.bytes)
      if (std::none_of(spec.args.begin(), spec.args.end(),
                       [&](const OpArgSpec& a) { return a.name == name && a.is_tensor; }))
        fail(source, table, "op '" + spec.name + "': 'bytes' names '" + name + "', which is no tensor argument");
    for (const auto& [size_name, size] : spec.sizes)
      for (const OpArgSpec& arg : spec.args)
        for (const std::string& dimension : arg.shape) try {
            evaluate_dimension(dimension, size);
          } catch (const OpSpecError& error) {
            fail(source, table, "op '" + spec.name + "', size '" + size_name + "': " + error.what());
          }
    set.add(std::move(spec));
  }
  return set;
}

OpSpecSet builtin_op_specs() {
  OpSpecSet set;
  for (const EmbeddedFile& file : embedded_files()) {
    std::string path(file.path);
    if (path.rfind("reference/ops/", 0) != 0 || !path.ends_with(".toml")) continue;
    for (OpSpec& spec : parse_op_specs(file.content, "embedded:" + path).ops) set.add(std::move(spec));
  }
  return set;
}

OpSpecSet op_specs_for(const fs::path& repository) {
  OpSpecSet set = builtin_op_specs();
  fs::path own = repository / "kcheck-ops.toml";
  std::error_code error;
  if (!repository.empty() && fs::exists(fs::symlink_status(own, error))) {
    // The repository's file: a regular file inside it (a link may not lead
    // out of it), read bounded (issue #28: a link to a 3 GB file was read whole).
    const fs::path target = regular_file_inside(repository, "kcheck-ops.toml");
    if (target.empty()) throw OpSpecError(own.string() + ": not a regular file inside the repository");
    std::string read_error;
    const std::optional<std::string> text = read_bounded_file(target, kMaxOpSpecBytes, read_error);
    if (!text) throw OpSpecError(own.string() + ": " + read_error);
    for (OpSpec& spec : parse_op_specs(*text, own.string()).ops) {
      if (spec.reference_kind == worker::ReferenceKind::python)
        require_repository_file(repository, own, spec, spec.reference);
      if (spec.baseline_kind == worker::ReferenceKind::python)
        require_repository_file(repository, own, spec, spec.baseline);
      set.add(std::move(spec));
    }
  }
  return set;
}

std::vector<worker::ArgPlan> concrete_args(const OpSpec& spec, const std::map<std::string, std::int64_t>& size) {
  std::vector<worker::ArgPlan> args;
  for (const OpArgSpec& arg : spec.args) {
    worker::ArgPlan concrete;
    concrete.name = arg.name;
    concrete.is_tensor = arg.is_tensor;
    concrete.value = arg.value;
    concrete.integer = arg.integer;
    if (arg.is_tensor) {
      for (const std::string& dimension : arg.shape) concrete.shape.push_back(evaluate_dimension(dimension, size));
      concrete.output = arg.output;
      concrete.low = arg.low;
      concrete.high = arg.high;
    }
    args.push_back(std::move(concrete));
  }
  return args;
}

std::string shape_label(const OpSpec& spec, const std::map<std::string, std::int64_t>& size) {
  for (const OpArgSpec& arg : spec.args) {
    if (!arg.is_tensor || arg.output) continue;
    std::string label;
    for (std::size_t i = 0; i < arg.shape.size(); ++i)
      label += (i ? "x" : "") + std::to_string(evaluate_dimension(arg.shape[i], size));
    if (!label.empty()) return label;
  }
  return "";
}

worker::WorkerPlan worker_plan(const OpSpecSet& specs, const RunSettings& settings) {
  worker::WorkerPlan plan;
  plan.backend = settings.backend;
  plan.seed = settings.seed;
  plan.bench = {settings.bench, settings.samples, settings.target_sample_seconds};
  plan.python_references = settings.python_references;
  for (const OpSpec& spec : specs.ops) {
    worker::OpPlan op{
        spec.name, spec.schema, spec.reference, spec.reference_kind, spec.reference_dtype, spec.baseline, spec.dtypes,
        {},        {},          spec.bytes};
    if (spec.reference_kind == worker::ReferenceKind::python) op.reference = spec.reference.substr(7);  // FILE:FUNCTION
    // The repository's own baselines are timed from Python (compiled_baselines.h), not by the worker.
    if (spec.baseline_kind != worker::ReferenceKind::builtin) op.baseline.clear();
    for (const auto& [dtype, value] : spec.tolerance) op.tolerance[dtype] = {value.rtol, value.atol};
    for (const auto& [size_name, size] : spec.sizes) {
      if (!settings.sizes.empty() &&
          std::find(settings.sizes.begin(), settings.sizes.end(), size_name) == settings.sizes.end())
        continue;
      op.cases.push_back({size_name, shape_label(spec, size), concrete_args(spec, size)});
    }
    plan.ops.push_back(std::move(op));
  }
  return plan;
}

}  // namespace kcheck
