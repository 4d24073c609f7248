// analyse_python_source(): tokens -> statement tree -> PythonFileFacts.
#include <algorithm>
#include <array>

#include "checker/kinds/python_facts.h"
#include "checker/python/python_literals.h"
#include "checker/python/python_statements.h"
#include "checker/python/python_tokenizer.h"

namespace kcheck {
namespace {

using python::Statement;
using python::Token;
using python::TokenKind;
using python::TokenRange;

enum class ScopeKind { module, class_body, function };

struct Scope {
  ScopeKind kind = ScopeKind::module;
  std::size_t class_index = 0;  // into PythonFileFacts::classes, for class_body
};

// Conditions an enclosing block imposes on what it contains.
struct Guards {
  bool type_checking = false;
  bool import_error = false;
};

bool is_name_token(const Token& token) {
  return token.kind == TokenKind::name && !python::is_python_keyword(token.text);
}

bool contains_op(TokenRange range, std::string_view op) {
  return std::any_of(range.begin, range.end, [&](const Token& token) { return token.is_op(op); });
}

// Exception names whose handler makes the guarded import optional.
bool catches_import_error(TokenRange except_header) {
  static constexpr std::array<std::string_view, 4> kCatching = {"ImportError", "ModuleNotFoundError", "Exception",
                                                                "BaseException"};
  TokenRange exceptions = except_header.from(1);
  if (exceptions.empty()) return true;  // bare `except:`
  return std::any_of(exceptions.begin, exceptions.end, [](const Token& token) {
    return std::find(kCatching.begin(), kCatching.end(), token.text) != kCatching.end();
  });
}

// `if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:` (any module alias).
bool is_type_checking_condition(TokenRange header) {
  const auto condition = python::dotted_name(header.from(1));
  return condition && (*condition == "TYPE_CHECKING" || condition->ends_with(".TYPE_CHECKING"));
}

class FactCollector {
 public:
  explicit FactCollector(PythonFileFacts& facts) : facts_(facts) {}

  void walk_block(const std::vector<Statement>& body, Scope scope, Guards guards) {
    for (std::size_t i = 0; i < body.size() && facts_.parsed; ++i) {
      const Statement& statement = body[i];
      if (!statement.is_compound()) {
        handle_simple_statement(statement.header, scope, guards);
        continue;
      }
      Guards inner = guards;
      if (statement.keyword == "if" && is_type_checking_condition(statement.header)) inner.type_checking = true;
      if (statement.keyword == "try" && try_handlers_catch_import_error(body, i)) inner.import_error = true;
      handle_compound_header(statement, scope);
      if (statement.keyword == "def") {
        walk_block(statement.body, {ScopeKind::function}, inner);
      } else if (statement.keyword == "class") {
        walk_block(statement.body, {ScopeKind::class_body, facts_.classes.size() - 1}, inner);
      } else {
        walk_block(statement.body, scope, inner);
      }
    }
  }

 private:
  static bool try_handlers_catch_import_error(const std::vector<Statement>& body, std::size_t try_index) {
    for (std::size_t i = try_index + 1; i < body.size(); ++i) {
      const std::string_view keyword = body[i].keyword;
      if (keyword != "except" && keyword != "else" && keyword != "finally") break;
      if (keyword == "except" && catches_import_error(body[i].header)) return true;
    }
    return false;
  }

  void syntax_error(std::string message, int line) {
    if (!facts_.parsed) return;
    facts_.parsed = false;
    facts_.parse_error = std::move(message);
    facts_.parse_error_line = line;
  }

  void add_feature(std::string construct, std::string minimum_python, int line) {
    facts_.newer_syntax.push_back({std::move(construct), std::move(minimum_python), line});
  }

  // ---- simple statements --------------------------------------------------

  void handle_simple_statement(TokenRange statement, Scope scope, Guards guards) {
    const Token& first = statement[0];
    if (first.is_name("import")) return handle_import(statement, scope, guards);
    if (first.is_name("from")) return handle_from_import(statement, scope, guards);
    if (first.is_name("type") && statement.size() >= 3 && is_name_token(statement[1]) &&
        (statement[2].is_op("=") || statement[2].is_op("["))) {
      add_feature("`type` alias statement (PEP 695)", "3.12", first.line);
    }
    handle_assignment(statement, scope);
    scan_expression(statement, scope.kind == ScopeKind::module);
  }

  void handle_import(TokenRange statement, Scope scope, Guards guards) {
    for (TokenRange alias : python::split_top_level(statement.from(1), ",")) {
      const std::size_t as_at = find_name(alias, "as");
      const auto module = python::dotted_name(alias.until(as_at));
      if (!module || (as_at < alias.size() && (as_at + 2 != alias.size() || !is_name_token(alias[as_at + 1])))) {
        return syntax_error("invalid syntax in import statement", statement[0].line);
      }
      std::string bound =
          as_at < alias.size() ? std::string(alias[as_at + 1].text) : module->substr(0, module->find('.'));
      PythonImport import{.module = *module, .bound_names = {bound}, .level = 0, .line = statement[0].line};
      set_guards(import, guards);
      import.in_function = scope.kind == ScopeKind::function;
      facts_.imports.push_back(std::move(import));
      bind_name(std::move(bound), scope);
    }
  }

  void handle_from_import(TokenRange statement, Scope scope, Guards guards) {
    PythonImport import{.line = statement[0].line, .is_from = true};
    set_guards(import, guards);
    import.in_function = scope.kind == ScopeKind::function;
    std::size_t index = 1;
    for (; index < statement.size() && (statement[index].is_op(".") || statement[index].is_op("...")); ++index) {
      import.level += static_cast<int>(statement[index].text.size());
    }
    const std::size_t import_at = find_name(statement, "import");
    if (import_at == statement.size()) return syntax_error("invalid syntax: expected 'import'", statement[0].line);
    if (import_at > index) {
      const auto module = python::dotted_name(statement.until(import_at).from(index));
      if (!module) return syntax_error("invalid syntax in from-import", statement[0].line);
      import.module = *module;
    } else if (import.level == 0) {
      return syntax_error("invalid syntax: from-import without a module", statement[0].line);
    }
    TokenRange names = statement.from(import_at + 1);
    if (!names.empty() && names[0].is_op("(") && names[names.size() - 1].is_op(")")) {
      names = names.from(1).until(names.size() - 2);
    }
    if (names.size() == 1 && names[0].is_op("*")) {
      import.names.emplace_back("*");
      if (scope.kind == ScopeKind::module) facts_.has_star_import = true;
    } else {
      std::vector<TokenRange> aliases = python::split_top_level(names, ",");
      if (aliases.size() > 1 && aliases.back().empty() && statement[statement.size() - 1].is_op(")"))
        aliases.pop_back();
      for (TokenRange alias : aliases) {
        const bool plain = alias.size() == 1 && is_name_token(alias[0]);
        const bool renamed =
            alias.size() == 3 && is_name_token(alias[0]) && alias[1].is_name("as") && is_name_token(alias[2]);
        if (!plain && !renamed) return syntax_error("invalid syntax in from-import", statement[0].line);
        import.names.emplace_back(alias[0].text);
        import.bound_names.emplace_back(alias[alias.size() - 1].text);
        bind_name(std::string(alias[alias.size() - 1].text), scope);
      }
    }
    if (import.level == 0 && import.module == "__future__" &&
        std::find(import.names.begin(), import.names.end(), "annotations") != import.names.end()) {
      facts_.future_annotations = true;
    }
    facts_.imports.push_back(std::move(import));
  }

  static std::size_t find_name(TokenRange range, std::string_view name) {
    for (std::size_t i = 0; i < range.size(); ++i) {
      if (range[i].is_name(name)) return i;
    }
    return range.size();
  }

  static void set_guards(PythonImport& import, Guards guards) {
    import.in_type_checking = guards.type_checking;
    import.in_import_error_guard = guards.import_error;
  }

  void bind_name(std::string name, Scope scope, int line = 0) {
    if (scope.kind == ScopeKind::module) {
      facts_.top_level_names.push_back(std::move(name));
    } else if (scope.kind == ScopeKind::class_body) {
      facts_.classes[scope.class_index].class_variables.push_back({std::move(name), line});
    }
  }

  // Assignments, annotated assignments and augmented assignments: the names
  // they bind at module or class level, `__all__`, and evaluated annotations.
  void handle_assignment(TokenRange statement, Scope scope) {
    if (scope.kind == ScopeKind::function) return;
    const int line = statement[0].line;
    const std::size_t annotation_colon = python::find_top_level_op(statement, ":");
    const std::size_t first_equals = python::find_top_level_op(statement, "=");
    if (annotation_colon < first_equals && annotation_colon < statement.size()) {
      const TokenRange target = statement.until(annotation_colon);
      const TokenRange annotation = statement.until(first_equals).from(annotation_colon + 1);
      check_evaluated_annotation(annotation);
      if (target.size() != 1 || !is_name_token(target[0])) return;
      if (first_equals == statement.size() && scope.kind == ScopeKind::class_body) {
        facts_.classes[scope.class_index].annotations.push_back({std::string(target[0].text), line});
        return;
      }
      if (target[0].is_name("__all__")) record_all(statement.from(first_equals + 1), false, line);
      bind_name(std::string(target[0].text), scope, line);
      return;
    }
    if (statement.size() >= 2 && statement[1].kind == TokenKind::op && statement[1].text.size() >= 2 &&
        statement[1].text.ends_with('=') && statement[1].text != "==" && statement[1].text != "!=" &&
        statement[1].text != "<=" && statement[1].text != ">=") {
      if (statement[0].is_name("__all__") && statement[1].is_op("+=")) record_all(statement.from(2), true, line);
      return;  // augmented assignment binds no new name
    }
    // Chained assignment `a = b = value`: every part but the last is a target;
    // an '=' after `lambda` belongs to a default argument.
    const std::size_t lambda_at = find_top_level_name(statement, "lambda");
    const std::vector<TokenRange> parts = python::split_top_level(statement.until(lambda_at), "=");
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      if (parts[i].size() == 1 && parts[i][0].is_name("__all__")) {
        record_all(statement.from(static_cast<std::size_t>(parts.back().begin - statement.begin)), false, line);
      }
      for (const std::string& name : bound_target_names(parts[i])) bind_name(name, scope, line);
    }
  }

  static std::size_t find_top_level_name(TokenRange range, std::string_view name) {
    int depth = 0;
    for (std::size_t i = 0; i < range.size(); ++i) {
      if (range[i].kind == TokenKind::op && range[i].text.size() == 1) {
        const char c = range[i].text[0];
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
      }
      if (depth == 0 && range[i].is_name(name)) return i;
    }
    return range.size();
  }

  // Names bound by a target list: `a`, `a, b`, `(a, *b)`, `[a, b]`; not
  // attributes or subscripts.
  static std::vector<std::string> bound_target_names(TokenRange target) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (!is_name_token(target[i])) continue;
      const bool after_dot = i > 0 && target[i - 1].is_op(".");
      const bool before_access =
          i + 1 < target.size() && (target[i + 1].is_op(".") || target[i + 1].is_op("[") || target[i + 1].is_op("("));
      if (!after_dot && !before_access) names.emplace_back(target[i].text);
    }
    return names;
  }

  // `__all__ = [...]` / `(...)` of string literals, or `+=` of one.
  void record_all(TokenRange value, bool extend, int line) {
    facts_.defines_all = true;
    if (!extend) facts_.all_line = line;
    std::optional<std::vector<std::string>> names = literal_string_sequence(value);
    if (!names) {
      all_is_literal_ = false;
      facts_.all_names.reset();
      return;
    }
    if (!all_is_literal_) return;
    if (extend && facts_.all_names) {
      facts_.all_names->insert(facts_.all_names->end(), names->begin(), names->end());
    } else {
      facts_.all_names = std::move(names);
    }
  }

  static std::optional<std::vector<std::string>> literal_string_sequence(TokenRange value) {
    if (value.size() < 2) return std::nullopt;
    const bool bracketed = (value[0].is_op("[") && value[value.size() - 1].is_op("]")) ||
                           (value[0].is_op("(") && value[value.size() - 1].is_op(")"));
    if (!bracketed) return std::nullopt;
    std::vector<std::string> names;
    for (TokenRange item : python::split_top_level(value.from(1).until(value.size() - 2), ",")) {
      if (item.empty()) continue;  // trailing comma
      auto text = python::string_literal_value(item);
      if (!text) return std::nullopt;
      names.push_back(std::move(*text));
    }
    return names;
  }

  // A `|` in an annotation that Python evaluates (module or class level, or a
  // function signature) needs 3.10 unless annotations are postponed.
  void check_evaluated_annotation(TokenRange annotation) {
    if (facts_.future_annotations || annotation.empty() || !contains_op(annotation, "|")) return;
    add_feature("`X | Y` union in an annotation evaluated at run time (no `from __future__ import annotations`)",
                "3.10", annotation[0].line);
  }

  // ---- compound statements ------------------------------------------------

  void handle_compound_header(const Statement& statement, Scope scope) {
    const bool top_level = scope.kind == ScopeKind::module;
    for (TokenRange decorator : statement.decorators) record_decorator(decorator, top_level);
    const TokenRange header = statement.header.from(statement.is_async ? 1 : 0);
    const std::string_view keyword = statement.keyword;
    if (keyword == "def") {
      handle_def(header, scope);
    } else if (keyword == "class") {
      handle_class(header, scope);
    } else {
      if (keyword == "match") add_feature("`match` statement (PEP 634)", "3.10", statement.line);
      if (keyword == "except" && header.size() > 1 && header[1].is_op("*")) {
        add_feature("`except*` (exception groups, PEP 654)", "3.11", statement.line);
      }
      if (keyword == "with") check_parenthesized_context_managers(header);
      scan_expression(header.from(1), top_level);
    }
  }

  void record_decorator(TokenRange decorator, bool top_level) {
    const std::size_t before_len = facts_.calls.size();
    scan_expression(decorator, top_level);
    // The decorator itself is the outermost call, which the scan records first.
    if (facts_.calls.size() > before_len && facts_.calls[before_len].line == decorator[0].line &&
        python::dotted_name(decorator.until(python::find_top_level_op(decorator, "(")))) {
      facts_.calls[before_len].is_decorator = true;
    }
  }

  void handle_def(TokenRange header, Scope scope) {
    if (header.size() < 3 || !is_name_token(header[1])) return syntax_error("invalid syntax in def", header[0].line);
    const int line = header[0].line;
    const std::string name(header[1].text);
    if (scope.kind == ScopeKind::class_body) {
      facts_.classes[scope.class_index].methods.push_back({name, line});
    } else if (scope.kind == ScopeKind::module) {
      facts_.top_level_names.push_back(name);
    }
    std::size_t parameters_open = 2;
    if (header[2].is_op("[")) {
      add_feature("type parameters on a function (PEP 695)", "3.12", line);
      parameters_open = python::find_closing_bracket(header, 2) + 1;
    }
    if (parameters_open >= header.size() || !header[parameters_open].is_op("(")) {
      return syntax_error("invalid syntax: expected '(' after the function name", line);
    }
    const std::size_t parameters_close = python::find_closing_bracket(header, parameters_open);
    const TokenRange parameters = header.until(parameters_close).from(parameters_open + 1);
    for (TokenRange parameter : python::split_top_level(parameters, ",")) {
      const std::size_t colon = python::find_top_level_op(parameter, ":");
      if (colon < parameter.size())
        check_evaluated_annotation(parameter.until(python::find_top_level_op(parameter, "=")).from(colon + 1));
    }
    const TokenRange after_parameters = header.from(parameters_close + 1);
    if (!after_parameters.empty() && after_parameters[0].is_op("->"))
      check_evaluated_annotation(after_parameters.from(1));
    scan_expression(header.from(parameters_open), scope.kind == ScopeKind::module);
  }

  void handle_class(TokenRange header, Scope scope) {
    if (header.size() < 2 || !is_name_token(header[1])) return syntax_error("invalid syntax in class", header[0].line);
    PythonClass cls{
        .name = std::string(header[1].text), .line = header[0].line, .at_top_level = scope.kind == ScopeKind::module};
    std::size_t bases_open = 2;
    if (header.size() > 2 && header[2].is_op("[")) {
      add_feature("type parameters on a class (PEP 695)", "3.12", cls.line);
      bases_open = python::find_closing_bracket(header, 2) + 1;
    }
    if (bases_open < header.size() && header[bases_open].is_op("(")) {
      const std::size_t bases_close = python::find_closing_bracket(header, bases_open);
      for (TokenRange base : python::split_top_level(header.until(bases_close).from(bases_open + 1), ",")) {
        const bool keyword_argument = base.size() > 1 && base[1].is_op("=");
        if (!base.empty() && !keyword_argument) cls.bases.emplace_back(base.source_text());
      }
      scan_expression(header.from(bases_open), scope.kind == ScopeKind::module);
    }
    bind_name(cls.name, scope, cls.line);
    facts_.classes.push_back(std::move(cls));
  }

  // `with (a as b, c):` — a parenthesized group of context managers that uses
  // `as` inside the parentheses (a tuple without `as` was always valid).
  void check_parenthesized_context_managers(TokenRange header) {
    if (header.size() < 3 || !header[1].is_op("(")) return;
    const std::size_t close = python::find_closing_bracket(header, 1);
    if (close + 1 != header.size()) return;
    for (TokenRange item : python::split_top_level(header.until(close).from(2), ",")) {
      if (find_top_level_name(item, "as") < item.size()) {
        // Documented for 3.10; CPython 3.9's PEG parser already accepts it,
        // and so does ast.parse(feature_version=(3, 9)).
        add_feature("parenthesized context managers", "3.9", header[0].line);
        return;
      }
    }
  }

  // ---- expressions --------------------------------------------------------

  // Records calls of dotted names and `torch.ops.<ns>` chains in a range.
  void scan_expression(TokenRange range, bool top_level) {
    for (std::size_t i = 0; i < range.size(); ++i) {
      if (!is_name_token(range[i]) || (i > 0 && range[i - 1].is_op("."))) continue;
      std::size_t end = i + 1;
      while (end + 1 < range.size() && range[end].is_op(".") && is_name_token(range[end + 1])) end += 2;
      const TokenRange chain = range.until(end).from(i);
      if (chain.size() >= 5 && chain[0].is_name("torch") && chain[2].is_name("ops")) {
        facts_.torch_ops_chains.push_back({compact(chain.source_text()), chain[0].line});
      }
      const bool after_definition_keyword = i > 0 && (range[i - 1].is_name("def") || range[i - 1].is_name("class"));
      if (end < range.size() && range[end].is_op("(") && !after_definition_keyword) {
        record_call(compact(chain.source_text()), range, end, top_level);
      }
    }
  }

  // A dotted name as written may hold spaces or line breaks around the dots.
  static std::string compact(std::string_view text) {
    std::string result;
    result.reserve(text.size());
    for (char c : text) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\' && c != '\f') result += c;
    }
    return result;
  }

  void record_call(std::string callee, TokenRange range, std::size_t open, bool top_level) {
    PythonCall call{.callee = std::move(callee), .line = range[open].line, .at_top_level = top_level};
    const std::size_t close = python::find_closing_bracket(range, open);
    bool seen_positional = false;
    for (TokenRange argument : python::split_top_level(range.until(close).from(open + 1), ",")) {
      if (argument.empty()) continue;
      call.arguments.emplace_back(argument.source_text());
      const bool keyword = argument.size() > 1 && is_name_token(argument[0]) && argument[1].is_op("=");
      if (keyword || argument[0].is_op("**") || seen_positional) continue;
      seen_positional = true;
      call.has_positional_argument = true;
      call.first_string_argument = python::string_literal_value(argument);
      const std::size_t inner_open = python::find_top_level_op(argument, "(");
      if (inner_open < argument.size() && python::find_closing_bracket(argument, inner_open) + 1 == argument.size()) {
        if (auto inner = python::dotted_name(argument.until(inner_open))) call.first_argument_callee = compact(*inner);
      }
    }
    facts_.calls.push_back(std::move(call));
  }

  PythonFileFacts& facts_;
  bool all_is_literal_ = true;
};

void record_parse_problem(PythonFileFacts& facts, const python::SyntaxProblem& problem) {
  facts.parsed = false;
  facts.parse_error = problem.message;
  facts.parse_error_line = problem.line;
}

}  // namespace

PythonFileFacts analyse_python_source(std::string_view source, std::string relative_path) {
  PythonFileFacts facts;
  facts.relative_path = std::move(relative_path);
  const python::TokenizedSource tokens = python::tokenize(source);
  if (tokens.problem) {
    record_parse_problem(facts, *tokens.problem);
    return facts;
  }
  const python::ParsedModule module = python::parse_statements(tokens.tokens);
  if (module.problem) {
    record_parse_problem(facts, *module.problem);
    return facts;
  }
  for (const python::Pep701FString& fstring : tokens.pep701_fstrings) {
    facts.newer_syntax.push_back({"f-string with " + fstring.reason + " (PEP 701)", "3.12", fstring.line});
  }
  FactCollector(facts).walk_block(module.body, {}, {});
  std::stable_sort(facts.newer_syntax.begin(), facts.newer_syntax.end(),
                   [](const PythonSyntaxFeature& a, const PythonSyntaxFeature& b) { return a.line < b.line; });
  return facts;
}

}  // namespace kcheck
