#include "checker/python/python_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "checker/support/text_scan.h"

namespace kcheck::python {
namespace {

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// Bytes of multi-byte UTF-8 sequences count as identifier characters: Python
// accepts non-ASCII letters in names, and a light tokenizer need not decide
// which code points are letters.
bool is_identifier_start(char c) { return is_ascii_letter(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }
bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }

struct StringPrefix {
  bool valid = false;
  bool formatted = false;  // f / F
  bool raw = false;        // r / R
};

StringPrefix parse_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return {};
  StringPrefix prefix;
  int bytes = 0, unicode = 0;
  for (char c : word) {
    switch (c | 0x20) {  // ASCII lower case
      case 'r':
        if (prefix.raw) return {};
        prefix.raw = true;
        break;
      case 'f':
        if (prefix.formatted) return {};
        prefix.formatted = true;
        break;
      case 'b':
        ++bytes;
        break;
      case 'u':
        ++unicode;
        break;
      default:
        return {};
    }
  }
  if (bytes > 1 || unicode > 1) return {};
  if (unicode && word.size() != 1) return {};
  if (bytes && prefix.formatted) return {};
  prefix.valid = true;
  return prefix;
}

// The encoding a PEP 263 declaration on `line` names ("# -*- coding: latin-1 -*-"),
// "" when the line declares none.
std::string_view declared_encoding(std::string_view line) {
  const std::size_t hash = line.find_first_not_of(" \t\f");
  if (hash == std::string_view::npos || line[hash] != '#') return {};
  for (std::size_t at = line.find("coding", hash); at != std::string_view::npos; at = line.find("coding", at + 1)) {
    text::Scanner scan(line.substr(at + 6));
    if (!scan.take(':') && !scan.take('=')) continue;
    scan.take_while([](char c) { return c == ' ' || c == '\t'; });
    return scan.take_while([](char c) { return text::is_alnum(c) || c == '-' || c == '_' || c == '.'; });
  }
  return {};
}

// The encoding declared on line 1, or on line 2 when line 1 is a comment or
// blank (PEP 263); "" when none is.
std::string_view source_encoding_declaration(std::string_view source) {
  const std::size_t first_end = std::min(source.find_first_of("\r\n"), source.size());
  const std::string_view first = source.substr(0, first_end);
  if (const std::string_view declared = declared_encoding(first); !declared.empty()) return declared;
  const std::size_t first_code = first.find_first_not_of(" \t\f");
  if (first_code != std::string_view::npos && first[first_code] != '#') return {};
  std::string_view rest = source.substr(first_end);
  if (rest.starts_with("\r\n"))
    rest.remove_prefix(2);
  else if (!rest.empty())
    rest.remove_prefix(1);
  return declared_encoding(rest.substr(0, std::min(rest.find_first_of("\r\n"), rest.size())));
}

bool names_utf8(std::string_view encoding) {
  std::string normal;
  for (char c : encoding) normal += c == '_' ? '-' : text::is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
  return normal == "utf-8" || normal == "utf8" || normal.starts_with("utf-8-") || normal.starts_with("utf8-");
}

// Why the bytes of `source` cannot be decoded as CPython would, if they cannot:
// UTF-8 everywhere (comments and string literals too) unless line 1 or 2
// declares another encoding, which a BOM then contradicts.
std::optional<SyntaxProblem> source_encoding_problem(std::string_view source, bool has_bom) {
  const std::string_view declared = source_encoding_declaration(source);
  if (!declared.empty() && !names_utf8(declared)) {
    if (has_bom) return SyntaxProblem{"encoding problem: " + std::string(declared) + " with BOM", 1};
    return std::nullopt;  // decoded by that codec, which kcheck does not second-guess
  }
  const std::optional<std::size_t> invalid = text::first_invalid_utf8(source);
  if (!invalid) return std::nullopt;
  char byte[5];
  std::snprintf(byte, sizeof byte, "\\x%02x", static_cast<unsigned char>(source[*invalid]));
  const int line = 1 + static_cast<int>(std::count(source.begin(), source.begin() + static_cast<long>(*invalid), '\n'));
  return SyntaxProblem{"Non-UTF-8 code starting with '" + std::string(byte) + "' on line " + std::to_string(line) +
                           ", but no encoding declared; see https://peps.python.org/pep-0263/ for details",
                       line};
}

// The quote that delimits a string being scanned.
struct Quote {
  char character = '"';
  bool triple = false;
};

// CPython's own limits (Parser/tokenizer.h MAXINDENT, MAXLEVEL,
// MAXFSTRINGLEVEL): a source past them does not compile. They also bound the
// recursion of this tokenizer (nested f-strings and replacement fields) and of
// the statement parser and fact collector (one level per indented block).
constexpr std::size_t kMaxIndentLevels = 100;
constexpr std::size_t kMaxBracketNesting = 200;
constexpr int kMaxFStringNesting = 150;

constexpr std::array<std::string_view, 5> kThreeCharOperators = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::array<std::string_view, 19> kTwoCharOperators = {
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
constexpr std::string_view kOneCharOperators = "()[]{}:,;.+-*/%&|^~<>=@!";

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view source) : source_(source) {}

  TokenizedSource run() {
    const bool has_bom = source_.starts_with("\xEF\xBB\xBF");
    if (has_bom) pos_ = 3;
    if (const auto nul = source_.find('\0'); nul != std::string_view::npos) {
      fail("source code cannot contain null bytes", line_at(nul));
      return std::move(out_);
    }
    if (auto problem = source_encoding_problem(source_.substr(pos_), has_bom)) {
      out_.problem = std::move(problem);
      return std::move(out_);
    }
    while (!failed()) {
      if (at_line_start_ && brackets_.empty()) {
        handle_indentation();
        if (failed()) break;
      }
      if (at_end()) break;
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        skip_comment();
      } else if (at_newline()) {
        end_physical_line();
      } else if (c == '\\') {
        continue_line();
      } else {
        scan_top_level_token();
      }
    }
    finish();
    return std::move(out_);
  }

 private:
  struct OpenBracket {
    char character;
    int line;
  };

  char peek(std::size_t ahead = 0) const { return pos_ + ahead < source_.size() ? source_[pos_ + ahead] : '\0'; }
  bool at_end() const { return pos_ >= source_.size(); }
  bool at_newline() const { return peek() == '\n' || peek() == '\r'; }
  void consume_newline() {
    pos_ += (peek() == '\r' && peek(1) == '\n') ? 2 : 1;
    ++line_;
  }
  bool failed() const { return out_.problem.has_value(); }
  void fail(std::string message, int line) {
    if (!failed()) out_.problem = SyntaxProblem{std::move(message), line};
  }
  int line_at(std::size_t offset) const {
    return 1 + static_cast<int>(std::count(source_.begin(), source_.begin() + static_cast<long>(offset), '\n'));
  }
  void emit(TokenKind kind, std::size_t begin, int start_line) {
    out_.tokens.push_back({kind, source_.substr(begin, pos_ - begin), start_line, line_});
  }

  void handle_indentation() {
    at_line_start_ = false;
    int column = 0;
    for (;; ++pos_) {
      const char c = peek();
      if (c == ' ')
        ++column;
      else if (c == '\t')
        column = (column / 8 + 1) * 8;
      else if (c == '\f')
        column = 0;
      else
        break;
    }
    if (at_end() || at_newline() || peek() == '#') return;  // blank line: no indentation change
    if (column > indents_.back()) {
      if (indents_.size() >= kMaxIndentLevels) return fail("too many levels of indentation", line_);
      indents_.push_back(column);
      emit(TokenKind::indent, pos_, line_);
      return;
    }
    while (column < indents_.back()) {
      indents_.pop_back();
      emit(TokenKind::dedent, pos_, line_);
    }
    if (column != indents_.back()) fail("unindent does not match any outer indentation level", line_);
  }

  void skip_comment() {
    while (!at_end() && !at_newline()) ++pos_;
  }

  void end_physical_line() {
    const std::size_t begin = pos_;
    const int line = line_;
    consume_newline();
    if (!brackets_.empty()) return;  // implicit line joining
    if (logical_line_has_tokens_) {
      out_.tokens.push_back({TokenKind::newline, source_.substr(begin, pos_ - begin), line, line});
      logical_line_has_tokens_ = false;
    }
    at_line_start_ = true;
  }

  void continue_line() {
    ++pos_;
    if (!at_newline()) {
      fail("unexpected character after line continuation character", line_);
      return;
    }
    consume_newline();
    if (at_end()) fail("unexpected EOF while parsing", line_);
  }

  void scan_top_level_token() {
    const std::size_t begin = pos_;
    const int line = line_;
    current_fstring_is_pep701_ = false;
    std::vector<Quote> no_enclosing_quotes;
    const TokenKind kind = scan_token(no_enclosing_quotes);
    if (failed()) return;
    emit(kind, begin, line);
    logical_line_has_tokens_ = true;
    if (kind == TokenKind::op) track_bracket(out_.tokens.back().text, line);
  }

  void track_bracket(std::string_view op, int line) {
    if (op.size() != 1) return;
    const char c = op[0];
    if (c == '(' || c == '[' || c == '{') {
      if (brackets_.size() >= kMaxBracketNesting) return fail("too many nested parentheses", line);
      brackets_.push_back({c, line});
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets_.empty()) {
        fail(std::string("unmatched '") + c + "'", line);
        return;
      }
      const char open = brackets_.back().character;
      const char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != expected) {
        fail(std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" + open + "'", line);
        return;
      }
      brackets_.pop_back();
    }
  }

  // Scans one name, number, string or operator starting at pos_.
  TokenKind scan_token(std::vector<Quote>& enclosing) {
    const std::size_t begin = pos_;
    const char c = peek();
    if (is_identifier_start(c)) {
      while (is_identifier_char(peek())) ++pos_;
      if (peek() == '\'' || peek() == '"') {
        const StringPrefix prefix = parse_string_prefix(source_.substr(begin, pos_ - begin));
        if (prefix.valid) {
          scan_string(prefix, enclosing);
          return TokenKind::string;
        }
      }
      return TokenKind::name;
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
      scan_number();
      return TokenKind::number;
    }
    if (c == '\'' || c == '"') {
      scan_string(StringPrefix{.valid = true}, enclosing);
      return TokenKind::string;
    }
    scan_operator();
    return TokenKind::op;
  }

  void scan_number() {
    if (peek() == '0' && std::string_view("xXoObB").find(peek(1)) != std::string_view::npos) {
      pos_ += 2;
      while (is_identifier_char(peek())) ++pos_;
      return;
    }
    auto digits = [this] {
      while (is_digit(peek()) || peek() == '_') ++pos_;
    };
    digits();
    if (peek() == '.') {
      ++pos_;
      digits();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
      pos_ += 2;
      digits();
    }
    if (peek() == 'j' || peek() == 'J') ++pos_;
  }

  void scan_operator() {
    const char first = peek();
    if (kOneCharOperators.find(first) == std::string_view::npos) {
      fail("invalid character '" + std::string(1, first) + "' in source", line_);
      return;
    }
    // Compared character by character: operators are the most common tokens.
    auto starts_with = [this](std::string_view op) {
      for (std::size_t i = 0; i < op.size(); ++i) {
        if (peek(i) != op[i]) return false;
      }
      return true;
    };
    for (std::string_view op : kThreeCharOperators) {
      if (op[0] == first && starts_with(op)) {
        pos_ += 3;
        return;
      }
    }
    for (std::string_view op : kTwoCharOperators) {
      if (op[0] == first && starts_with(op)) {
        pos_ += 2;
        return;
      }
    }
    ++pos_;
  }

  bool at_closing_quote(const Quote& quote) const {
    return peek() == quote.character && (!quote.triple || (peek(1) == quote.character && peek(2) == quote.character));
  }

  std::string unterminated_message(const Quote& quote, std::string_view what) const {
    return std::string("unterminated ") + (quote.triple ? "triple-quoted " : "") + std::string(what) +
           " literal (detected at line " + std::to_string(line_) + ")";
  }

  // pos_ is at the opening quote.
  void scan_string(const StringPrefix& prefix, std::vector<Quote>& enclosing) {
    const int start_line = line_;
    Quote quote{peek(), peek(1) == peek() && peek(2) == peek()};
    pos_ += quote.triple ? 3 : 1;
    if (reuses_enclosing_quote(quote, enclosing))
      note_pep701(start_line, "a replacement field reuses the quote of its enclosing f-string");
    if (prefix.formatted) {
      scan_fstring_body(quote, prefix.raw, enclosing, start_line);
      return;
    }
    for (;;) {
      if (at_end()) return fail(unterminated_message(quote, "string"), start_line);
      if (peek() == '\\') {
        ++pos_;
        if (at_newline())
          consume_newline();
        else if (!at_end())
          ++pos_;
      } else if (at_newline()) {
        if (!quote.triple) return fail(unterminated_message(quote, "string"), start_line);
        consume_newline();
      } else if (at_closing_quote(quote)) {
        pos_ += quote.triple ? 3 : 1;
        return;
      } else {
        ++pos_;
      }
    }
  }

  // Before Python 3.12 an f-string ended at the first occurrence of its own
  // quote, so a nested string could not use the quote of any enclosing one.
  static bool reuses_enclosing_quote(const Quote& quote, const std::vector<Quote>& enclosing) {
    return std::any_of(enclosing.begin(), enclosing.end(), [&](const Quote& outer) {
      return outer.character == quote.character && (!outer.triple || quote.triple);
    });
  }

  void note_pep701(int line, std::string reason) {
    if (current_fstring_is_pep701_) return;  // one report per outermost f-string
    current_fstring_is_pep701_ = true;
    out_.pep701_fstrings.push_back({line, std::move(reason)});
  }

  void scan_fstring_body(const Quote& quote, bool raw, std::vector<Quote>& enclosing, int start_line) {
    enclosing.push_back(quote);
    while (!failed()) {
      if (at_end()) {
        fail(unterminated_message(quote, "f-string"), start_line);
        break;
      }
      const char c = peek();
      if (at_newline()) {
        if (!quote.triple) {
          fail(unterminated_message(quote, "f-string"), start_line);
          break;
        }
        consume_newline();
      } else if (c == '\\') {
        skip_fstring_escape(raw);
      } else if (at_closing_quote(quote)) {
        pos_ += quote.triple ? 3 : 1;
        break;
      } else if (c == '{' && peek(1) == '{') {
        pos_ += 2;
      } else if (c == '{') {
        ++pos_;
        scan_replacement_field(enclosing);
      } else if (c == '}' && peek(1) == '}') {
        pos_ += 2;
      } else if (c == '}') {
        fail("f-string: single '}' is not allowed", line_);
      } else {
        ++pos_;
      }
    }
    enclosing.pop_back();
  }

  void skip_fstring_escape(bool raw) {
    ++pos_;
    if (!raw && peek() == 'N' && peek(1) == '{') {  // \N{NAME}: the braces are not a field
      while (!at_end() && !at_newline() && peek() != '}') ++pos_;
      if (peek() == '}') ++pos_;
    } else if (peek() == '{' || peek() == '}') {
      // The brace still opens or closes a field.
    } else if (at_newline()) {
      consume_newline();
    } else if (!at_end()) {
      ++pos_;
    }
  }

  // pos_ is just after the '{' of a replacement field; returns after its '}'.
  // Fields nest through nested f-strings and format specs, each level a few
  // frames of recursion: bounded like CPython bounds nested f-strings.
  void scan_replacement_field(std::vector<Quote>& enclosing) {
    if (field_nesting_ >= kMaxFStringNesting) return fail("too many nested f-strings", line_);
    ++field_nesting_;
    scan_replacement_field_body(enclosing);
    --field_nesting_;
  }

  void scan_replacement_field_body(std::vector<Quote>& enclosing) {
    const Quote own = enclosing.back();
    int depth = 0;
    while (!failed()) {
      // A quote here opens a nested string (PEP 701), even the enclosing one's.
      if (at_end()) return fail("f-string: expecting '}'", line_);
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (at_newline()) {
        if (!own.triple) note_pep701(line_, "a line break inside a replacement field of a single-quoted f-string");
        consume_newline();
      } else if (c == '#') {
        note_pep701(line_, "a comment inside a replacement field");
        skip_comment();
      } else if (c == '\\') {
        note_pep701(line_, "a backslash inside a replacement field");
        continue_line();
      } else {
        const std::size_t begin = pos_;
        const int line = line_;
        const TokenKind kind = scan_token(enclosing);
        if (failed()) return;
        const std::string_view text = source_.substr(begin, pos_ - begin);
        if (kind == TokenKind::string && text.find('\\') != std::string_view::npos) {
          note_pep701(line, "a backslash inside a replacement field");
        }
        if (kind != TokenKind::op) continue;
        if (text == "(" || text == "[" || text == "{") {
          if (++depth > static_cast<int>(kMaxBracketNesting)) return fail("too many nested parentheses", line);
        } else if (text == ")" || text == "]") {
          if (--depth < 0) return fail(std::string("f-string: unmatched '") + text[0] + "'", line);
        } else if (text == "}") {
          if (depth-- == 0) return;
        } else if (depth == 0 && text.starts_with(':')) {
          pos_ = begin + 1;  // ':' starts the format spec even when followed by '='
          scan_format_spec(enclosing);
          return;
        }
        // A '!' conversion is followed by a name and then ':' or '}', which
        // the loop handles like any other token.
      }
    }
  }

  // pos_ is just after the ':'; returns after the '}' that closes the field.
  void scan_format_spec(std::vector<Quote>& enclosing) {
    const Quote own = enclosing.back();
    while (!failed()) {
      if (at_end() || at_closing_quote(own)) return fail("f-string: expecting '}'", line_);
      const char c = peek();
      if (at_newline()) {
        if (!own.triple)
          return fail("f-string: newlines are not allowed in format specifiers for single quoted f-strings", line_);
        consume_newline();
      } else if (c == '{') {
        ++pos_;
        scan_replacement_field(enclosing);
      } else if (c == '}') {
        ++pos_;
        return;
      } else if (c == '\\') {
        skip_fstring_escape(true);
      } else {
        ++pos_;
      }
    }
  }

  void finish() {
    if (failed()) return;
    if (!brackets_.empty()) {
      fail(std::string("'") + brackets_.back().character + "' was never closed", brackets_.back().line);
      return;
    }
    if (logical_line_has_tokens_) out_.tokens.push_back({TokenKind::newline, {}, line_, line_});
    while (indents_.size() > 1) {
      indents_.pop_back();
      out_.tokens.push_back({TokenKind::dedent, {}, line_, line_});
    }
    out_.tokens.push_back({TokenKind::end_of_file, {}, line_, line_});
  }

  std::string_view source_;
  std::size_t pos_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;
  bool logical_line_has_tokens_ = false;
  bool current_fstring_is_pep701_ = false;
  int field_nesting_ = 0;  // replacement fields open around pos_
  std::vector<int> indents_{0};
  std::vector<OpenBracket> brackets_;
  TokenizedSource out_;
};

}  // namespace

TokenizedSource tokenize(std::string_view source) { return Tokenizer(source).run(); }

}  // namespace kcheck::python
