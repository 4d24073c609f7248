#include <algorithm>
#include <cctype>

#include "checker/kinds/namespace_facts.h"

namespace kcheck {

namespace {

constexpr std::string_view kMacros[] = {
    "STABLE_TORCH_LIBRARY_FRAGMENT", "STABLE_TORCH_LIBRARY_IMPL", "STABLE_TORCH_LIBRARY",
    "TORCH_LIBRARY_FRAGMENT",        "TORCH_LIBRARY_IMPL",        "TORCH_LIBRARY"};

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Reads C/C++ text one token at a time, past comments and literals, keeping
// the line number.
class SourceCursor {
 public:
  explicit SourceCursor(std::string_view text) : text_(text) {}

  bool done() const { return at_ >= text_.size(); }
  int line() const { return line_; }

  // The next identifier, or "" past another character (each skipped).
  std::string_view next_identifier() {
    skip_space_and_comments();
    if (done()) return {};
    if (std::isdigit(static_cast<unsigned char>(text_[at_]))) {  // a number: 1'000, 0x1F, 1.5e-3f
      while (at_ < text_.size() && (identifier_char(text_[at_]) || text_[at_] == '\'' || text_[at_] == '.')) ++at_;
      return {};
    }
    if (identifier_char(text_[at_])) {
      const std::size_t start = at_;
      while (at_ < text_.size() && identifier_char(text_[at_])) ++at_;
      const std::string_view word = text_.substr(start, at_ - start);
      if (at_ < text_.size() && text_[at_] == '"' && !word.empty() && word.back() == 'R' &&
          (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
        skip_raw_literal();
        return {};
      }
      return word;
    }
    if (text_[at_] == '"' || text_[at_] == '\'') {
      skip_literal(text_[at_]);
      return {};
    }
    advance();
    return {};
  }

  // Past space and comments, whether the next character is `c` (taken).
  bool take(char c) {
    skip_space_and_comments();
    if (done() || text_[at_] != c) return false;
    advance();
    return true;
  }

 private:
  void advance() {
    if (text_[at_] == '\n') ++line_;
    ++at_;
  }

  void skip_space_and_comments() {
    while (!done()) {
      if (std::isspace(static_cast<unsigned char>(text_[at_]))) {
        advance();
      } else if (text_.substr(at_, 2) == "//") {
        while (!done() && text_[at_] != '\n') advance();
      } else if (text_.substr(at_, 2) == "/*") {
        at_ += 2;
        while (!done() && text_.substr(at_, 2) != "*/") advance();
        at_ = std::min(at_ + 2, text_.size());
      } else {
        return;
      }
    }
  }

  // R"delim( ... )delim", from its opening quote; may span lines.
  void skip_raw_literal() {
    const std::size_t open = text_.find('(', at_);
    if (open == std::string_view::npos || open - at_ > 17) {  // not a raw string: a delimiter is at most 16
      advance();
      return;
    }
    const std::string closing = ")" + std::string(text_.substr(at_ + 1, open - at_ - 1)) + "\"";
    const std::size_t close = text_.find(closing, open + 1);
    const std::size_t end = close == std::string_view::npos ? text_.size() : close + closing.size();
    while (at_ < end) advance();
  }

  void skip_literal(char quote) {
    advance();
    while (!done() && text_[at_] != quote && text_[at_] != '\n') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) advance();
      advance();
    }
    if (!done()) advance();
  }

  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<SourceRegistration> find_source_registrations(std::string_view text, const std::string& file) {
  std::vector<SourceRegistration> found;
  SourceCursor cursor(text);
  while (!cursor.done()) {
    const std::string_view word = cursor.next_identifier();
    if (std::find(std::begin(kMacros), std::end(kMacros), word) == std::end(kMacros)) continue;
    const int line = cursor.line();
    if (!cursor.take('(')) continue;
    const std::string_view name = cursor.next_identifier();
    if (name.empty()) continue;
    found.push_back({file, line, std::string(word), std::string(name)});
  }
  return found;
}

bool literal_namespace(const SourceRegistration& registration) {
  const std::string& name = registration.namespace_;
  const bool capitals =
      std::none_of(name.begin(), name.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
  return !capitals;
}

}  // namespace kcheck
