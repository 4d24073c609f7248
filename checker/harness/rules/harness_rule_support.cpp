#include <algorithm>
#include <cmath>
#include <cstdio>

#include "checker/kinds/process_end.h"
#include "checker/harness/rules/harness_rule_support.h"

namespace kcheck {

std::string output_excerpt(const WorkerEnd& end) {
  if (end.output_bytes == 0) return "";
  constexpr std::size_t kShown = 400;
  std::string tail = end.output.size() > kShown ? end.output.substr(end.output.size() - kShown) : end.output;
  std::replace_if(
      tail.begin(), tail.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  std::replace_if(
      tail.begin(), tail.end(), [](unsigned char c) { return c < 0x20 || c >= 0x7f; }, '?');
  std::string text = "; output (" + std::to_string(end.output_bytes) + " bytes";
  if (end.output_truncated || end.output.size() > kShown) text += ", last " + std::to_string(tail.size()) + " shown";
  return text + "): " + tail;
}

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value != 0 && (std::abs(value) < 1e-3 || std::abs(value) >= 1e5) ? "%.2e" : "%.4g",
                value);
  return text;
}

}  // namespace kcheck
