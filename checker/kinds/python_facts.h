#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcheck {

struct PythonImport {
  std::string module;              // dotted; "" for `from . import x`
  std::vector<std::string> names;  // `from m import a, b` -> {"a","b"}; `*` kept; empty for `import m`
  // Names the import binds, parallel to `names` for from-imports
  // (`from m import a as b` -> {"b"}); for `import a.b` {"a"}, `import a.b as c` {"c"}.
  std::vector<std::string> bound_names;
  int level = 0;  // number of leading dots
  int line = 0;
  bool is_from = false;
  bool in_type_checking = false;       // inside `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:`
  bool in_import_error_guard = false;  // inside try: ... except ImportError/ModuleNotFoundError
  bool in_function = false;            // inside a def body: runs only when the function is called
};

// A construct newer than Python 3.9 (for KP003).
struct PythonSyntaxFeature {
  std::string construct;       // e.g. "match statement", "except*", "PEP 695 type parameters"
  std::string minimum_python;  // e.g. "3.10"
  int line = 0;
};

// A call (or decorator) whose callee is a dotted name.
struct PythonCall {
  std::string callee;  // "torch.library.custom_op", "register_fake", "eval"
  int line = 0;
  bool is_decorator = false;
  bool at_top_level = false;                         // decorator of a top-level def/class, or a module-level statement
  std::optional<std::string> first_string_argument;  // when the first positional arg is a string literal
  std::string first_argument_callee;                 // when the first positional arg is a call: its dotted callee
  bool has_positional_argument = false;
  std::vector<std::string> arguments;  // each argument's source text, keyword arguments as `name=value`
};

// A name bound in a class body, with its line.
struct PythonClassMember {
  std::string name;
  int line = 0;
};

struct PythonClass {
  std::string name;
  int line = 0;
  std::vector<std::string> bases;                  // dotted names as written
  std::vector<PythonClassMember> methods;          // defs in the class body
  std::vector<PythonClassMember> class_variables;  // names assigned (or classes defined) in the class body
  std::vector<PythonClassMember> annotations;      // `x: T` without a value
  bool at_top_level = false;                       // defined at module level (not inside a def or class)
};

struct PythonAttributeChain {
  std::string chain;  // e.g. "torch.ops._relu_cpu_abc1234.relu"
  int line = 0;
};

struct PythonFileFacts {
  std::string relative_path;  // relative to the variant root
  bool parsed = true;
  std::string parse_error;  // set when !parsed
  int parse_error_line = 0;

  std::vector<PythonImport> imports;
  bool defines_all = false;                           // `__all__` is assigned at module level
  std::optional<std::vector<std::string>> all_names;  // its names, when every assignment is a literal
  int all_line = 0;
  std::vector<std::string> top_level_names;  // defs, classes, assignments, imports bound at module level
  bool has_star_import = false;              // `from m import *` at module level binds unknown names
  std::vector<PythonClass> classes;
  std::vector<PythonCall> calls;
  std::vector<PythonAttributeChain> torch_ops_chains;  // every `torch.ops.<ns>...` chain outside strings
  std::vector<PythonSyntaxFeature> newer_syntax;
  bool future_annotations = false;
};

// Parses one Python source; never throws on bad input (parse errors land in the facts).
// Tokenizes like CPython 3.12 and checks the statement and block structure
// (colons, indentation, imports, decorators), not the full expression
// grammar: a file CPython rejects for an expression-level error such as
// `x = = 1` still parses here. Imports match `ast` exactly on the whole
// standard library (tests/python/stdlib_differential_test.cpp).
PythonFileFacts analyse_python_source(std::string_view source, std::string relative_path);

}  // namespace kcheck
