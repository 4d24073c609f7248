#include "checker/python/python_statements.h"

#include <array>
#include <string>

namespace kcheck::python {

std::string_view TokenRange::source_text() const {
  if (empty()) return {};
  const char* first = begin->text.data();
  const Token& last = *(end - 1);
  return {first, static_cast<std::size_t>(last.text.data() + last.text.size() - first)};
}

namespace {

int bracket_delta(const Token& token) {
  if (token.kind != TokenKind::op || token.text.size() != 1) return 0;
  switch (token.text[0]) {
    case '(':
    case '[':
    case '{':
      return 1;
    case ')':
    case ']':
    case '}':
      return -1;
    default:
      return 0;
  }
}

constexpr std::array<std::string_view, 11> kCompoundKeywords = {"if",     "elif",    "else", "while", "for",  "try",
                                                                "except", "finally", "with", "def",   "class"};

bool is_compound_keyword(std::string_view word) {
  for (std::string_view keyword : kCompoundKeywords) {
    if (word == keyword) return true;
  }
  return false;
}

class StatementParser {
 public:
  explicit StatementParser(const std::vector<Token>& tokens) : tokens_(tokens) {}

  ParsedModule run() {
    ParsedModule module;
    module.body = parse_block(false);
    if (!problem_ && current().kind != TokenKind::end_of_file) fail("unexpected unindent", current().line);
    module.problem = std::move(problem_);
    return module;
  }

 private:
  const Token& current() const { return tokens_[index_]; }
  bool failed() const { return problem_.has_value(); }
  void fail(std::string message, int line) {
    if (!failed()) problem_ = SyntaxProblem{std::move(message), line};
  }

  // The tokens of the current logical line, up to (excluding) its NEWLINE.
  TokenRange logical_line() const {
    std::size_t end = index_;
    while (tokens_[end].kind != TokenKind::newline && tokens_[end].kind != TokenKind::end_of_file) ++end;
    return {&tokens_[index_], &tokens_[end]};
  }

  std::vector<Statement> parse_block(bool in_match) {
    std::vector<Statement> statements;
    std::vector<TokenRange> decorators;
    while (!failed()) {
      const Token& token = current();
      if (token.kind == TokenKind::end_of_file || token.kind == TokenKind::dedent) break;
      if (token.kind == TokenKind::indent) {
        fail("unexpected indent", token.line);
        break;
      }
      if (token.is_op("@")) {
        decorators.push_back(parse_decorator());
        continue;
      }
      const std::size_t first_new = statements.size();
      parse_line(statements, in_match);
      if (!decorators.empty()) attach_decorators(statements, first_new, decorators);
    }
    if (!decorators.empty())
      fail("invalid syntax: a decorator must precede a def or class", decorators.back().begin->line);
    return statements;
  }

  TokenRange parse_decorator() {
    ++index_;  // '@'
    const TokenRange expression = logical_line();
    if (expression.empty()) fail("invalid syntax: empty decorator", current().line);
    index_ += expression.size();
    if (current().kind == TokenKind::newline) ++index_;
    return expression;
  }

  void attach_decorators(std::vector<Statement>& statements, std::size_t first_new,
                         std::vector<TokenRange>& decorators) {
    if (first_new >= statements.size() ||
        (statements[first_new].keyword != "def" && statements[first_new].keyword != "class")) {
      fail("invalid syntax: a decorator must precede a def or class", decorators.back().begin->line);
      return;
    }
    statements[first_new].decorators = std::move(decorators);
    decorators.clear();
  }

  // The compound keyword a logical line starts with, or "".
  std::string_view compound_keyword(TokenRange line, bool in_match, bool& is_async) const {
    is_async = false;
    if (line.empty() || line[0].kind != TokenKind::name) return {};
    std::string_view word = line[0].text;
    if (word == "async" && line.size() > 1 &&
        (line[1].is_name("def") || line[1].is_name("with") || line[1].is_name("for"))) {
      is_async = true;
      return line[1].text;
    }
    if (is_compound_keyword(word)) return word;
    // Soft keywords: a simple statement never ends with ':', and `case`
    // clauses only occur directly inside a match statement.
    if (word == "match") {
      const std::size_t colon = find_top_level_op(line, ":");
      if (colon > 1 && colon + 1 == line.size()) return word;
    }
    if (word == "case" && in_match) return word;
    return {};
  }

  void parse_line(std::vector<Statement>& statements, bool in_match) {
    const TokenRange line = logical_line();
    bool is_async = false;
    const std::string_view keyword = compound_keyword(line, in_match, is_async);
    if (keyword.empty()) {
      parse_simple_statements(statements);
      return;
    }
    Statement statement;
    statement.keyword = keyword;
    statement.is_async = is_async;
    statement.line = line[0].line;
    const std::size_t colon = find_top_level_op(line, ":");
    if (colon == line.size()) {
      fail("expected ':'", line[line.size() - 1].line);
      return;
    }
    statement.header = line.until(colon);
    index_ += colon + 1;
    if (current().kind == TokenKind::newline) {
      ++index_;
      if (current().kind != TokenKind::indent) {
        fail("expected an indented block after '" + std::string(keyword) + "' statement on line " +
                 std::to_string(statement.line),
             current().line);
        return;
      }
      ++index_;
      statement.body = parse_block(keyword == "match");
      if (current().kind == TokenKind::dedent) ++index_;
    } else {
      parse_simple_statements(statement.body);
    }
    statements.push_back(std::move(statement));
  }

  void parse_simple_statements(std::vector<Statement>& statements) {
    const TokenRange line = logical_line();
    index_ += line.size();
    if (current().kind == TokenKind::newline) ++index_;
    const std::vector<TokenRange> parts = split_top_level(line, ";");
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].empty()) {
        if (i + 1 == parts.size() && i > 0) break;  // a trailing ';' is allowed
        fail("invalid syntax", line.empty() ? current().line : line[0].line);
        return;
      }
      if (bool is_async = false; !compound_keyword(parts[i], false, is_async).empty() && (parts.size() > 1 || i > 0)) {
        fail("invalid syntax: compound statement after ';'", parts[i][0].line);
        return;
      }
      Statement statement;
      statement.header = parts[i];
      statement.line = parts[i][0].line;
      statements.push_back(std::move(statement));
    }
  }

  const std::vector<Token>& tokens_;
  std::size_t index_ = 0;
  std::optional<SyntaxProblem> problem_;
};

}  // namespace

std::size_t find_top_level_op(TokenRange range, std::string_view op) {
  int depth = 0;
  int open_lambdas = 0;
  for (std::size_t i = 0; i < range.size(); ++i) {
    const Token& token = range[i];
    const int delta = bracket_delta(token);
    if (delta < 0) depth += delta;
    const bool at_top = depth == 0;
    if (delta > 0) depth += delta;
    if (!at_top) continue;
    if (token.is_name("lambda")) ++open_lambdas;
    if (token.kind != TokenKind::op || token.text != op) continue;
    if (op == ":" && open_lambdas > 0) {
      --open_lambdas;
      continue;
    }
    return i;
  }
  return range.size();
}

std::vector<TokenRange> split_top_level(TokenRange range, std::string_view separator) {
  std::vector<TokenRange> parts;
  int depth = 0;
  const Token* part_begin = range.begin;
  for (const Token* token = range.begin; token != range.end; ++token) {
    const int delta = bracket_delta(*token);
    if (delta < 0) depth += delta;
    if (depth == 0 && token->kind == TokenKind::op && token->text == separator) {
      parts.push_back({part_begin, token});
      part_begin = token + 1;
    }
    if (delta > 0) depth += delta;
  }
  parts.push_back({part_begin, range.end});
  return parts;
}

std::size_t find_closing_bracket(TokenRange range, std::size_t open_index) {
  int depth = 0;
  for (std::size_t i = open_index; i < range.size(); ++i) {
    depth += bracket_delta(range[i]);
    if (depth == 0) return i;
  }
  return range.size();
}

ParsedModule parse_statements(const std::vector<Token>& tokens) { return StatementParser(tokens).run(); }

}  // namespace kcheck::python
