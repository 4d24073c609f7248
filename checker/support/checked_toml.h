#pragma once
// toml++ recurses once per level of nesting while it parses and frees a
// document, and a dotted key or a table header is one level per part: a
// build.toml header of 60 000 dotted parts overflowed the stack. Every TOML
// text kcheck reads (build.toml, policy files, op specs, kcheck.toml) goes
// through checked_toml_parse, which refuses such a text before toml++ sees it.
#include <optional>
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace kcheck {

// How deep a TOML document may nest: the parts of table headers and dotted
// keys, arrays and inline tables, all counted together along one path. Real
// files use a handful of levels.
inline constexpr int kMaxTomlNesting = 64;

// Where and why a TOML text nests deeper than kMaxTomlNesting.
struct TomlNestingProblem {
  std::string description;
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

// A linear scan of the TOML lexical structure (strings, comments, keys,
// brackets); nullopt when the text stays within the bound. Syntax errors are
// left to the parser.
std::optional<TomlNestingProblem> toml_nesting_problem(std::string_view text);

// toml::parse, after the nesting scan. A text past the bound throws
// toml::parse_error like a syntax error, with the line and column of the
// level that went past it, so callers handle one error.
toml::table checked_toml_parse(std::string_view text, std::string_view source_name);

}  // namespace kcheck
