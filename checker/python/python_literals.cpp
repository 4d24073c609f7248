#include "checker/python/python_literals.h"

#include <algorithm>
#include <array>

namespace kcheck::python {
namespace {

char decode_simple_escape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case '0':
      return '\0';
    case '\\':
    case '\'':
    case '"':
      return c;
    default:
      return 0;
  }
}

}  // namespace

std::string string_token_value(std::string_view text) {
  const std::size_t quote_at = text.find_first_of("'\"");
  if (quote_at == std::string_view::npos) return {};
  const std::string_view prefix = text.substr(0, quote_at);
  const bool raw = prefix.find_first_of("rR") != std::string_view::npos;
  std::string_view body = text.substr(quote_at);
  const std::size_t quote_size = body.size() >= 6 && body[0] == body[1] && body[1] == body[2] ? 3 : 1;
  body = body.substr(quote_size, body.size() >= 2 * quote_size ? body.size() - 2 * quote_size : 0);
  if (raw) return std::string(body);
  std::string value;
  value.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      value += body[i];
      continue;
    }
    const char next = body[i + 1];
    if (next == '\n') {  // line continuation inside the string
      ++i;
    } else if (const char decoded = decode_simple_escape(next); decoded != 0 || next == '0') {
      value += decoded;
      ++i;
    } else {
      value += body[i];  // unknown escapes stay as written
    }
  }
  return value;
}

std::optional<std::string> string_literal_value(TokenRange range) {
  if (range.empty()) return std::nullopt;
  std::string value;
  for (const Token* token = range.begin; token != range.end; ++token) {
    if (token->kind != TokenKind::string) return std::nullopt;
    value += string_token_value(token->text);
  }
  return value;
}

std::optional<std::string> dotted_name(TokenRange range) {
  if (range.empty() || range.size() % 2 == 0) return std::nullopt;
  std::string name;
  for (std::size_t i = 0; i < range.size(); ++i) {
    const Token& token = range[i];
    const bool expect_name = i % 2 == 0;
    if (expect_name ? token.kind != TokenKind::name || is_python_keyword(token.text) : !token.is_op("."))
      return std::nullopt;
    name += token.text;
  }
  return name;
}

bool is_python_keyword(std::string_view word) {
  // Sorted, for a binary search; called for nearly every name token.
  static constexpr std::array<std::string_view, 35> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  static_assert(std::is_sorted(kKeywords.begin(), kKeywords.end()));
  if (word.size() < 2 || word.size() > 8) return false;
  return std::binary_search(kKeywords.begin(), kKeywords.end(), word);
}

}  // namespace kcheck::python
