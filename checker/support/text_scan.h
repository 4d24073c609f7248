#pragma once
// Linear matching of untrusted text. kcheck uses no <regex> matcher: its
// backtracking matcher recurses once per character, so a long metadata string
// overflowed the stack. Matchers written with these pieces read each
// character a bounded number of times and never recurse.
#include <algorithm>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string_view>

namespace kcheck::text {

// ASCII character classes (std::isalpha and friends depend on the locale and
// take an int that must not be a negative char).
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool is_alpha(char c) { return is_lower(c) || is_upper(c); }
constexpr bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
constexpr bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// True when `text` is not empty and every character satisfies `accepts`.
template <typename Predicate>
constexpr bool consists_of(std::string_view text, Predicate accepts) {
  return !text.empty() && std::all_of(text.begin(), text.end(), accepts);
}

// A forward-only cursor: every take_* consumes on success and leaves the
// position unchanged on failure, so a matcher built from them is linear.
class Scanner {
 public:
  constexpr explicit Scanner(std::string_view text) : text_(text) {}

  constexpr bool done() const { return position_ == text_.size(); }
  constexpr std::string_view rest() const { return text_.substr(position_); }
  constexpr std::size_t position() const { return position_; }
  constexpr char peek() const { return done() ? '\0' : text_[position_]; }

  constexpr bool take(char c) {
    if (done() || text_[position_] != c) return false;
    ++position_;
    return true;
  }
  constexpr bool take(std::string_view literal) {
    if (!rest().starts_with(literal)) return false;
    position_ += literal.size();
    return true;
  }
  template <typename Predicate>
  constexpr bool take_one(Predicate accepts) {
    if (done() || !accepts(text_[position_])) return false;
    ++position_;
    return true;
  }
  // The run of characters that satisfy `accepts` (possibly empty).
  template <typename Predicate>
  constexpr std::string_view take_while(Predicate accepts) {
    const std::size_t begin = position_;
    while (!done() && accepts(text_[position_])) ++position_;
    return text_.substr(begin, position_ - begin);
  }

 private:
  std::string_view text_;
  std::size_t position_ = 0;
};

// What a UTF-8 lead byte announces: the sequence length and the range of the
// byte after it (RFC 3629 table: no overlong forms, no surrogates, nothing
// past U+10FFFF); nullopt for a byte that cannot start a sequence.
struct Utf8Lead {
  std::size_t length;
  unsigned char second_min, second_max;
};
constexpr std::optional<Utf8Lead> utf8_lead(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return Utf8Lead{2, 0x80, 0xBF};
  if (lead == 0xE0) return Utf8Lead{3, 0xA0, 0xBF};
  if (lead == 0xED) return Utf8Lead{3, 0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return Utf8Lead{3, 0x80, 0xBF};
  if (lead == 0xF0) return Utf8Lead{4, 0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return Utf8Lead{4, 0x80, 0xBF};
  if (lead == 0xF4) return Utf8Lead{4, 0x80, 0x8F};
  return std::nullopt;
}

// The offset of the first byte that is not part of a well-formed UTF-8
// sequence, or nullopt when all of `bytes` is UTF-8.
constexpr std::optional<std::size_t> first_invalid_utf8(std::string_view bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const auto byte = static_cast<unsigned char>(bytes[at]);
    if (byte < 0x80) {
      ++at;
      continue;
    }
    const std::optional<Utf8Lead> lead = utf8_lead(byte);
    if (!lead || bytes.size() - at < lead->length) return at;
    const auto second = static_cast<unsigned char>(bytes[at + 1]);
    if (second < lead->second_min || second > lead->second_max) return at;
    for (std::size_t i = 2; i < lead->length; ++i)
      if ((static_cast<unsigned char>(bytes[at + i]) & 0xC0) != 0x80) return at;
    at += lead->length;
  }
  return std::nullopt;
}

// The value of a string of decimal digits, or nullopt when it is empty, holds
// anything but digits (no sign, no spaces) or does not fit in T. Every number
// read from an upload goes through here instead of std::stoul & co., which
// throw on exactly the inputs an upload can carry.
template <std::unsigned_integral T>
std::optional<T> parse_decimal(std::string_view digits) {
  if (!consists_of(digits, is_digit)) return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// "<digits>.<digits>" (e.g. "12.4"), the whole text.
constexpr bool is_major_minor(std::string_view text) {
  Scanner scan(text);
  return !scan.take_while(is_digit).empty() && scan.take('.') && !scan.take_while(is_digit).empty() && scan.done();
}

// The first "<digits>.<digits>" right after an occurrence of `label` in
// `text` (e.g. "release " in nvcc --version), or nullopt.
constexpr std::optional<std::string_view> major_minor_after(std::string_view text, std::string_view label) {
  for (std::size_t at = text.find(label); at != std::string_view::npos; at = text.find(label, at + 1)) {
    Scanner scan(text.substr(at + label.size()));
    const std::string_view major = scan.take_while(is_digit);
    if (major.empty() || !scan.take('.') || scan.take_while(is_digit).empty()) continue;
    return text.substr(at + label.size(), scan.position());
  }
  return std::nullopt;
}

}  // namespace kcheck::text
