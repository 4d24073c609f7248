#pragma once
// Generated hostile inputs: long strings and deep nesting built from a piece.
#include <cstddef>
#include <string>
#include <string_view>

namespace kcheck::testing_support {

// `piece` written `times` times: "[[[" from ("[", 3).
inline std::string repeated(std::string_view piece, std::size_t times) {
  std::string text;
  text.reserve(piece.size() * times);
  for (std::size_t i = 0; i < times; ++i) text += piece;
  return text;
}

}  // namespace kcheck::testing_support
