// For each construct newer than the floor: a snippet that CPython's parser
// rejects at the floor's feature version is flagged by KP003, and a twin it
// accepts is not. The parser's verdict is asserted too (one python process).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checker/python/rules/python_rule_table.h"
#include "tests/python/python_test_support.h"
#include "tests/python/rule_test_support.h"

namespace kcheck {
namespace {

struct SnippetPair {
  std::string construct;
  std::string floor;         // the policy floor (and ast feature version) it is judged at
  std::string newer;         // rejected by ast at the floor, flagged by KP003
  std::string twin;          // accepted by ast at the floor, not flagged
  bool ast_can_tell = true;  // false where the difference is run-time only
};

const std::vector<SnippetPair>& snippet_pairs() {
  static const std::vector<SnippetPair> pairs = {
      {"match statement", "3.9", "match command:\n    case [x, *rest]:\n        pass\n    case _:\n        pass\n",
       "if command:\n    x, *rest = command\nelse:\n    pass\n"},
      {"except*", "3.9", "try:\n    pass\nexcept* ValueError as group:\n    pass\n",
       "try:\n    pass\nexcept ValueError as error:\n    pass\n"},
      {"PEP 695 function type parameters", "3.9", "def first[T](items: list[T]) -> T:\n    return items[0]\n",
       "def first(items: 'list[T]') -> 'T':\n    return items[0]\n"},
      {"PEP 695 class type parameters", "3.9", "class Box[T]:\n    pass\n", "class Box(Generic[T]):\n    pass\n"},
      {"PEP 695 type statement", "3.9", "type Pair = tuple[int, int]\n", "Pair = tuple[int, int]\n"},
      {"PEP 701 reused quotes", "3.9", "name = f\"{data[\"key\"]}\"\n", "name = f\"{data['key']}\"\n"},
      {"PEP 701 backslash in field", "3.9", "text = f\"{'\\n'.join(lines)}\"\n",
       "newline = '\\n'\ntext = f\"{newline.join(lines)}\"\n"},
      {"PEP 701 comment in field", "3.9", "text = f'''{value # the value\n}'''\n", "text = f'''{value\n}'''\n"},
      {"PEP 701 nested same-quote f-strings", "3.9", "s = f'{f'{f'{x}'}'}'\n", "s = f'{f\"{x}\"}'\n"},
      {"parenthesized context managers", "3.8", "with (open('a') as a, open('b') as b):\n    pass\n",
       "with open('a') as a, open('b') as b:\n    pass\n"},
      {"X | Y annotation evaluated at run time", "3.9", "def scale(x: int | None) -> None:\n    pass\n",
       "from __future__ import annotations\ndef scale(x: int | None) -> None:\n    pass\n", false},
      {"X | Y module-level annotation", "3.9", "limit: int | None = None\n", "def f():\n    limit: int | None = None\n",
       false},
  };
  return pairs;
}

Findings kp003_findings(const std::string& source, const std::string& floor) {
  Policy policy = testing::hub_policy();
  policy.python.floor = *Version::parse(floor);
  return testing::run_rule(*make_kp003_syntax_newer_than_floor(),
                           testing::make_tree(testing::make_variant({{"snippet.py", source}})), policy);
}

std::vector<int> feature_version(const std::string& floor) {
  const Version version = *Version::parse(floor);
  return {static_cast<int>(version.major()), static_cast<int>(version.minor())};
}

TEST(KP003Snippets, CPythonRejectsEachNewerSnippetAndAcceptsItsTwin) {
  nlohmann::json request = nlohmann::json::array();
  for (const SnippetPair& pair : snippet_pairs()) {
    request.push_back({{"source", pair.newer}, {"feature_version", feature_version(pair.floor)}});
    request.push_back({{"source", pair.twin}, {"feature_version", feature_version(pair.floor)}});
  }
  const std::filesystem::path request_file = std::filesystem::path(KCHECK_BINARY_DIR) / "kp003-snippets.json";
  std::ofstream(request_file) << request.dump();
  const std::string script = std::string(KCHECK_SOURCE_DIR) + "/tests/python/feature_version_oracle.py";
  const auto result = testing::run_command(testing::oracle_python() + " " + testing::shell_quote(script) + " < " +
                                           testing::shell_quote(request_file.string()));
  ASSERT_EQ(result.status, 0);
  const nlohmann::json accepted = nlohmann::json::parse(result.output);
  ASSERT_EQ(accepted.size(), 2 * snippet_pairs().size());
  for (std::size_t i = 0; i < snippet_pairs().size(); ++i) {
    const SnippetPair& pair = snippet_pairs()[i];
    EXPECT_TRUE(accepted[2 * i + 1].get<bool>()) << pair.construct << ": twin must be valid at " << pair.floor;
    if (pair.ast_can_tell) {
      EXPECT_FALSE(accepted[2 * i].get<bool>()) << pair.construct << ": ast accepts the newer snippet";
    }
  }
}

TEST(KP003Snippets, NewerSnippetIsFlaggedAndTwinIsNot) {
  for (const SnippetPair& pair : snippet_pairs()) {
    const Findings newer = kp003_findings(pair.newer, pair.floor);
    EXPECT_EQ(newer.size(), 1u) << pair.construct << " not flagged at floor " << pair.floor;
    for (const Finding& finding : newer)
      EXPECT_EQ(finding.location.line, 1 + (pair.construct.starts_with("except*") ? 2 : 0)) << pair.construct;
    const Findings twin = kp003_findings(pair.twin, pair.floor);
    EXPECT_TRUE(twin.empty()) << pair.construct << " twin flagged: " << (twin.empty() ? "" : twin[0].message);
  }
}

TEST(KP003Snippets, ParenthesizedContextManagersAreFineAtFloor39) {
  // CPython 3.9's parser accepts them (ast.parse(..., feature_version=(3, 9)) does).
  EXPECT_TRUE(kp003_findings("with (open('a') as a, open('b') as b):\n    pass\n", "3.9").empty());
}

}  // namespace
}  // namespace kcheck
