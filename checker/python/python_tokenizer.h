#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcheck::python {

enum class TokenKind { name, number, string, op, newline, indent, dedent, end_of_file };

// One token of a Python source. `text` views the source buffer given to
// tokenize(), which must outlive the tokens.
struct Token {
  TokenKind kind = TokenKind::op;
  std::string_view text;
  int line = 1;      // 1-based line where the token starts
  int end_line = 1;  // line where it ends (strings may span lines)

  bool is_op(std::string_view op) const { return kind == TokenKind::op && text == op; }
  bool is_name(std::string_view name) const { return kind == TokenKind::name && text == name; }
};

// Why the source cannot be tokenized, in CPython's words where possible.
struct SyntaxProblem {
  std::string message;
  int line = 0;
};

// An f-string that only Python 3.12's grammar (PEP 701) accepts: a quote of
// an enclosing string reused inside a replacement field, or a backslash, a
// comment or a line break in an expression part.
struct Pep701FString {
  int line = 0;
  std::string reason;
};

struct TokenizedSource {
  std::vector<Token> tokens;  // ends with end_of_file unless `problem` is set
  std::optional<SyntaxProblem> problem;
  std::vector<Pep701FString> pep701_fstrings;
};

// Tokenizes like CPython 3.12 (f-strings per PEP 701), accepting a UTF-8 BOM,
// CRLF or CR line ends, tabs in indentation and non-ASCII identifiers. Like
// CPython it refuses bytes that are not UTF-8 (unless a PEP 263 line declares
// another encoding) and nesting past its limits (100 indentation levels, 200
// brackets, 150 nested f-strings), so no input drives recursion deeper.
TokenizedSource tokenize(std::string_view source);

}  // namespace kcheck::python
