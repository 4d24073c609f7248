#pragma once
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "checker/kinds/build_config_facts.h"

// Internal to the config analyser: the schema of build.toml per edition
// (build-toml.md §2–§6) and the kcheck-only checks of §7.3.
namespace kcheck::build_config {

ConfigPosition position_of(const toml::source_region& source);
// "string", "integer", "array", ... for messages.
std::string type_name(const toml::node& node);

// What the upstream loader would conclude: the edition the file is read
// with and the problems of that schema (unknown keys, types, missing keys,
// enumerations, value grammars), plus the edition verdict itself.
struct SchemaVerdict {
  BuildEdition edition = BuildEdition::unknown;
  std::vector<ConfigProblem> problems;
};
SchemaVerdict check_schema(const toml::table& root);

// kcheck-only checks on the values read (§7.3, B5, pairing and naming
// warnings). Needs no policy.
std::vector<ConfigProblem> check_values(const BuildConfigFacts& facts);

}  // namespace kcheck::build_config
