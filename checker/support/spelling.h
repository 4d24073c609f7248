#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kcheck {

// Edits (insert, delete, replace) that turn `a` into `b` (Levenshtein).
std::size_t edit_distance(std::string_view a, std::string_view b);

// What a misspelt name was meant to be, for a "did you mean" hint: the
// candidate nearest to `word`, at most `max_edits` edits away (ties: the
// first), treating '-' and '_' as the same; "" when none is that near.
std::string nearest_spelling(std::string_view word, const std::vector<std::string>& candidates,
                             std::size_t max_edits = 2);

}  // namespace kcheck
