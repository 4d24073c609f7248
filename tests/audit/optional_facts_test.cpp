// Rules declare the optional facts they read (RuleInfo::reads) and
// collect_facts reads the union over the selected rules: nothing else lists
// which rule needs which table (issue #31, item 1).
#include <gtest/gtest.h>

#include <filesystem>

#include "checker/audit/audit.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

OptionalFacts read_for(const RuleRegistry& rules, std::vector<std::string> select) {
  return rules.optional_facts(CodeSelection{std::move(select), {}});
}

TEST(OptionalFacts, TheSelectedRulesDecideWhatIsRead) {
  const RuleRegistry rules = make_rule_registry();
  EXPECT_EQ(read_for(rules, {"KE001"}), OptionalFacts{});
  EXPECT_EQ(read_for(rules, {"KE012"}), OptionalFact::build_leaks | OptionalFact::read_only_data);
  EXPECT_EQ(read_for(rules, {"KM007"}), OptionalFacts(OptionalFact::digest));
  EXPECT_EQ(read_for(rules, {"KE015"}), OptionalFacts(OptionalFact::needed_closure));
  EXPECT_EQ(read_for(rules, {"KE014", "KM010"}), OptionalFacts(OptionalFact::device_code));
  EXPECT_TRUE(read_for(rules, {"KD"}).has(OptionalFact::op_namespaces));
  EXPECT_TRUE(read_for(rules, {"KO001"}).has(OptionalFact::op_namespaces));
  // --ignore takes a rule's needs away with it.
  EXPECT_FALSE(rules.optional_facts(CodeSelection{{"KE"}, {"KE012"}}).has(OptionalFact::build_leaks));
}

// A fact no rule reads would be collected for nothing, or never: each has its reader.
TEST(OptionalFacts, EveryOptionalFactHasARuleThatReadsIt) {
  const OptionalFacts all = make_rule_registry().optional_facts(CodeSelection{});
  for (OptionalFact fact : {OptionalFact::op_namespaces, OptionalFact::build_leaks, OptionalFact::read_only_data,
                            OptionalFact::device_code, OptionalFact::digest, OptionalFact::needed_closure})
    EXPECT_TRUE(all.has(fact)) << static_cast<unsigned>(fact);
}

// The same through collect_facts, on a generated fixture with a module and a digest.
TEST(OptionalFacts, CollectFactsReadsOnlyWhatTheSelectionNeeds) {
  const RuleRegistry rules = make_rule_registry();
  const fs::path tree = fs::path(KCHECK_TREE_FIXTURES_DIR) / "ke015_symbol_no_needed_library_provides";
  ASSERT_TRUE(fs::exists(tree)) << tree;
  AuditOptions only_ke001;
  only_ke001.selection.select = {"KE001"};
  const TreeFacts lean = collect_facts(tree, only_ke001, rules);
  ASSERT_EQ(lean.variants.size(), 1u);
  ASSERT_EQ(lean.variants[0].native_modules.size(), 1u);
  const ElfTables& lean_tables = lean.variants[0].native_modules[0].elf->tables_read;
  EXPECT_FALSE(lean_tables.build_leaks || lean_tables.read_only_data || lean_tables.device_code ||
               lean_tables.torch_library_namespaces);
  EXPECT_FALSE(lean.variants[0].digest) << "no KM007, no hashing";

  AuditOptions leaks_and_digest;
  leaks_and_digest.selection.select = {"KE012", "KM007"};
  const TreeFacts read = collect_facts(tree, leaks_and_digest, rules);
  const ElfTables& tables = read.variants[0].native_modules[0].elf->tables_read;
  EXPECT_TRUE(tables.build_leaks && tables.read_only_data);
  EXPECT_FALSE(tables.device_code || tables.torch_library_namespaces);
  EXPECT_TRUE(read.variants[0].digest);
}

TEST(ConfigurationGuards, ARepositorysIgnoreCannotSwitchThemOff) {
  const RuleRegistry rules = make_rule_registry();
  EXPECT_TRUE(rules.switches_off_a_configuration_guard("KC"));
  EXPECT_TRUE(rules.switches_off_a_configuration_guard("KC006"));
  EXPECT_TRUE(rules.switches_off_a_configuration_guard("KC007"));
  EXPECT_TRUE(rules.switches_off_a_configuration_guard("K"));
  EXPECT_FALSE(rules.switches_off_a_configuration_guard("KC001"));
  EXPECT_FALSE(rules.switches_off_a_configuration_guard("KE"));
  EXPECT_FALSE(rules.switches_off_a_configuration_guard(""));
}

}  // namespace
}  // namespace kcheck
