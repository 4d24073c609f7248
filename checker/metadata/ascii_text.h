#pragma once
#include <algorithm>
#include <cctype>
#include <string>

namespace kcheck {

// ASCII lowercase: ids, license names and git object ids are ASCII.
inline std::string ascii_lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace kcheck
