#pragma once
#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "checker/python/python_tokenizer.h"

namespace kcheck::python {

// A run of tokens [begin, end) of one token vector.
struct TokenRange {
  const Token* begin = nullptr;
  const Token* end = nullptr;

  std::size_t size() const { return static_cast<std::size_t>(end - begin); }
  bool empty() const { return begin == end; }
  const Token& operator[](std::size_t index) const { return begin[index]; }
  TokenRange from(std::size_t index) const { return {begin + std::min(index, size()), end}; }
  TokenRange until(std::size_t index) const { return {begin, begin + std::min(index, size())}; }
  // The source text the range spans (tokens view one buffer).
  std::string_view source_text() const;
};

// One statement of the light statement tree: a simple statement, or a
// compound statement's header and body. `elif`, `else`, `except` and
// `finally` clauses are siblings of the statement they continue.
struct Statement {
  // "" for a simple statement; otherwise the compound keyword: "if", "elif",
  // "else", "while", "for", "try", "except", "finally", "with", "def",
  // "class", "match", "case" (for `async def` etc. the keyword after async).
  std::string_view keyword;
  bool is_async = false;
  TokenRange header;                   // simple: the statement; compound: up to the header colon
  std::vector<TokenRange> decorators;  // each without its '@'
  std::vector<Statement> body;
  int line = 0;

  bool is_compound() const { return !keyword.empty(); }
};

struct ParsedModule {
  std::vector<Statement> body;
  std::optional<SyntaxProblem> problem;
};

// Groups tokens into statements and blocks; checks the block structure
// (colons, indented blocks, decorators), not the full grammar.
ParsedModule parse_statements(const std::vector<Token>& tokens);

// Index of the first token at bracket depth 0 of `range` that is the operator
// `op`, skipping the ':' of lambdas when op is ":"; range.size() when none.
std::size_t find_top_level_op(TokenRange range, std::string_view op);

// Splits `range` at operator `separator` found at bracket depth 0.
std::vector<TokenRange> split_top_level(TokenRange range, std::string_view separator);

// Index of the bracket closing the one at `open_index`; range.size() when none.
std::size_t find_closing_bracket(TokenRange range, std::size_t open_index);

}  // namespace kcheck::python
