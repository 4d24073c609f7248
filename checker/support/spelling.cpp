#include "checker/support/spelling.h"

#include <algorithm>

namespace kcheck {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_spelling(std::string_view word, const std::vector<std::string>& candidates, std::size_t max_edits) {
  auto folded = [](std::string_view text) {
    std::string out(text);
    std::replace(out.begin(), out.end(), '-', '_');
    return out;
  };
  const std::string wanted = folded(word);
  std::string nearest;
  std::size_t nearest_distance = max_edits + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(wanted, folded(candidate));
    if (distance < nearest_distance && candidate != word) nearest = candidate, nearest_distance = distance;
  }
  return nearest;
}

}  // namespace kcheck
