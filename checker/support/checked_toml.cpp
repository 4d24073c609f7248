#include "checker/support/checked_toml.h"

#include <memory>
#include <vector>

namespace kcheck {
namespace {

// Follows the TOML grammar just far enough to know, at each key and each
// opening bracket, how deep in the document tree it lands.
class TomlNestingScan {
 public:
  explicit TomlNestingScan(std::string_view text) : text_(text) {}

  std::optional<TomlNestingProblem> run() {
    while (!problem_ && !at_end()) {
      if (open_.empty())
        scan_top_level_line();
      else
        scan_inside_brackets();
    }
    return problem_;
  }

 private:
  // An open array or inline table and the depth of the values it holds.
  struct OpenBracket {
    char character;
    int element_depth;
  };

  bool at_end() const { return position_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return position_ + ahead < text_.size() ? text_[position_ + ahead] : '\0'; }
  void advance() {
    if (text_[position_] == '\n') {
      ++line_;
      line_start_ = position_ + 1;
    }
    ++position_;
  }
  void skip_blanks() {
    while (peek() == ' ' || peek() == '\t') advance();
  }
  void skip_to_line_end() {
    while (!at_end() && peek() != '\n') advance();
  }

  void check_depth(int depth, std::string_view what) {
    if (depth <= kMaxTomlNesting || problem_) return;
    problem_ = TomlNestingProblem{std::string(what) + " nests deeper than " + std::to_string(kMaxTomlNesting) +
                                      " levels (table-header and dotted-key parts, arrays and inline tables "
                                      "counted together); kcheck reads no deeper",
                                  line_, static_cast<int>(position_ - line_start_) + 1};
  }

  // A basic, literal or multi-line string starting at the quote under the
  // cursor; a single-line string also ends at a line break (the parser then
  // reports it), so the scan stays in step with the lines.
  void skip_string() {
    const char quote = peek();
    const bool multi_line = peek(1) == quote && peek(2) == quote;
    for (int i = 0; i < (multi_line ? 3 : 1); ++i) advance();
    while (!at_end()) {
      const char c = peek();
      if (c == '\\' && quote == '"') {
        advance();
        if (!at_end()) advance();
      } else if (c == quote && (!multi_line || (peek(1) == quote && peek(2) == quote))) {
        // A multi-line string may end with up to two quotes of its own.
        for (int i = 0; i < (multi_line ? 5 : 1) && peek() == quote; ++i) advance();
        return;
      } else if (c == '\n' && !multi_line) {
        return;
      } else {
        advance();
      }
    }
  }

  // A key (bare, quoted or dotted) up to '=' or to `end`; returns its parts.
  int scan_key(char end) {
    int parts = 1;
    while (!problem_ && !at_end()) {
      const char c = peek();
      if (c == '=' || c == end || c == '\n' || c == '#') break;
      if (c == '"' || c == '\'') {
        skip_string();
        continue;
      }
      if (c == '.') ++parts;
      if (c == '{' || c == '}' || c == '[' || c == ',') break;  // not a key: the parser reports it
      advance();
    }
    return parts;
  }

  void scan_top_level_line() {
    skip_blanks();
    const char c = peek();
    if (c == '\n' || c == '\r') return advance();
    if (c == '#') return skip_to_line_end();
    if (c == '[') {
      const bool array_of_tables = peek(1) == '[';
      advance();
      if (array_of_tables) advance();
      const int parts = scan_key(']');
      check_depth(parts + (array_of_tables ? 1 : 0), "a table header");
      table_depth_ = parts + (array_of_tables ? 1 : 0);
      while (peek() == ']') advance();
      return;
    }
    const int value_depth = table_depth_ + scan_key('\0');
    check_depth(value_depth, "a key");
    if (peek() != '=') return skip_to_line_end();  // not a key-value pair: the parser reports it
    advance();
    scan_value(value_depth);
  }

  // After '=' (or an array element's start): a value at `depth`.
  void scan_value(int depth) {
    skip_blanks();
    const char c = peek();
    if (c == '"' || c == '\'') return skip_string();
    if (c == '[' || c == '{') {
      check_depth(depth + 1, c == '[' ? "an array" : "an inline table");
      open_.push_back({c, c == '[' ? depth + 1 : depth});
      advance();
      if (c == '{') after_inline_table_separator();
      return;
    }
    // A number, date, boolean: up to what ends a value.
    while (!at_end() && peek() != ',' && peek() != ']' && peek() != '}' && peek() != '\n' && peek() != '#') advance();
  }

  void after_inline_table_separator() {
    skip_blanks();
    if (peek() == '}' || peek() == '\n' || at_end()) return;
    const int value_depth = open_.back().element_depth + scan_key('}');
    check_depth(value_depth, "a key");
    if (peek() != '=') return;
    advance();
    scan_value(value_depth);
  }

  void scan_inside_brackets() {
    const char c = peek();
    if (c == '#') return skip_to_line_end();
    if (c == ']' || c == '}') {
      open_.pop_back();  // a mismatched bracket is the parser's to report
      return advance();
    }
    if (c == ',') {
      advance();
      if (open_.back().character == '{') return after_inline_table_separator();
      return scan_value(open_.back().element_depth);
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return advance();
    if (open_.back().character == '[') return scan_value(open_.back().element_depth);
    if (c == '"' || c == '\'') return skip_string();
    advance();  // anything else inside an inline table is the parser's to report
  }

  std::string_view text_;
  std::size_t position_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
  int table_depth_ = 0;  // the depth of the table the last header opened
  std::vector<OpenBracket> open_;
  std::optional<TomlNestingProblem> problem_;
};

}  // namespace

std::optional<TomlNestingProblem> toml_nesting_problem(std::string_view text) { return TomlNestingScan(text).run(); }

toml::table checked_toml_parse(std::string_view text, std::string_view source_name) {
  if (const std::optional<TomlNestingProblem> problem = toml_nesting_problem(text)) {
    const toml::source_position where{static_cast<toml::source_index>(problem->line),
                                      static_cast<toml::source_index>(problem->column)};
    throw toml::parse_error(problem->description.c_str(), where, std::make_shared<const std::string>(source_name));
  }
  return toml::parse(text, source_name);
}

}  // namespace kcheck
