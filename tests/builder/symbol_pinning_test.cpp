// The builder's symbol pinning (checker/builder/symbol_pinning.h) against
// this machine's own glibc and libstdc++: which imports it pins, substitutes
// or cannot fix, and that what it fixes is exactly what KE001/KE002 flag
// (one judgement, checker/elf/symbol_ceilings.h).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <exception>
#include <filesystem>
#include <string>

#include "checker/builder/symbol_pinning.h"
#include "checker/elf/symbol_ceilings.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

// The file this process loaded `function` from (libm.so.6, libc.so.6, ...).
fs::path library_holding(const void* function) {
  Dl_info info{};
  if (dladdr(function, &info) == 0 || info.dli_fname == nullptr) return {};
  return info.dli_fname;
}

fs::path locate(const std::string& library) {
  if (library == "libm.so.6")
    return library_holding(reinterpret_cast<const void*>(static_cast<double (*)(double)>(&::exp)));
  if (library == "libc.so.6") return library_holding(reinterpret_cast<const void*>(&::abort));
  if (library == "libstdc++.so.6") return library_holding(reinterpret_cast<const void*>(&std::terminate));
  return library;
}

NativePolicy manylinux_2_28() {
  NativePolicy policy;
  policy.symbol_ceilings["x86_64"] = {{"GLIBC", *Version::parse("2.28")}, {"GLIBCXX", *Version::parse("3.4.24")}};
  policy.named_version_releases["GLIBC_ABI_DT_RELR"] = *parse_symbol_version("GLIBC_2.36");
  return policy;
}

ElfFacts importing(std::vector<ElfImportedSymbol> imports) {
  ElfFacts module;
  module.imports = std::move(imports);
  for (const ElfImportedSymbol& import : module.imports)
    module.version_needs.push_back({import.version, import.library, false});
  return module;
}

class SymbolPinning : public ::testing::Test {
 protected:
  void SetUp() override {
#if !defined(__x86_64__) || !defined(__GLIBC__)
    GTEST_SKIP() << "the pinned versions below are those of x86_64 glibc";
#endif
    ASSERT_FALSE(locate("libm.so.6").empty()) << "dladdr found no file for exp";
  }
  NativePolicy policy = manylinux_2_28();
};

TEST_F(SymbolPinning, AnImportAboveTheCeilingIsPinnedToTheNewestAllowedVersion) {
  SymbolPinningPlan plan =
      plan_symbol_pinning(importing({{"exp", "GLIBC_2.29", "libm.so.6", false}}), policy, "x86_64", locate);
  ASSERT_EQ(plan.pinned.size(), 1u);
  EXPECT_EQ(plan.pinned[0].symbol, "exp");
  EXPECT_EQ(plan.pinned[0].needed_version, "GLIBC_2.29");
  EXPECT_EQ(plan.pinned[0].pinned_version, "GLIBC_2.2.5");
  EXPECT_TRUE(plan.substituted.empty());
  EXPECT_TRUE(plan.unresolved.empty());
  const std::string source = render_pinning_source(plan, "x86_64");
  EXPECT_NE(source.find(".symver kcheck_pinned_exp, exp@GLIBC_2.2.5"), std::string::npos) << source;
  EXPECT_NE(source.find(".hidden exp"), std::string::npos) << source;
  EXPECT_NE(source.find("jmp kcheck_pinned_exp@PLT"), std::string::npos) << source;
}

TEST_F(SymbolPinning, ImportsWithinTheCeilingAreLeftAlone) {
  SymbolPinningPlan plan = plan_symbol_pinning(importing({{"memcpy", "GLIBC_2.14", "libc.so.6", false},
                                                          {"exp", "GLIBC_2.2.5", "libm.so.6", false},
                                                          {"_ZSt9terminatev", "GLIBCXX_3.4", "libstdc++.so.6", false},
                                                          {"unversioned", "", "", false}}),
                                               policy, "x86_64", locate);
  EXPECT_TRUE(plan.empty());
  EXPECT_TRUE(plan.unresolved.empty());
}

TEST_F(SymbolPinning, StatAfterGlibc233IsSubstitutedByItsOldWrapper) {
  SymbolPinningPlan plan =
      plan_symbol_pinning(importing({{"stat", "GLIBC_2.33", "libc.so.6", false}}), policy, "x86_64", locate);
  ASSERT_EQ(plan.substituted.size(), 1u);
  EXPECT_EQ(plan.substituted[0].compat, "__xstat");
  EXPECT_EQ(plan.substituted[0].compat_version, "GLIBC_2.2.5");
  const std::string source = render_pinning_source(plan, "x86_64");
  EXPECT_NE(source.find(".symver kcheck_compat___xstat, __xstat@GLIBC_2.2.5"), std::string::npos) << source;
  EXPECT_NE(source.find("kcheck_compat___xstat(1, p, b)"), std::string::npos) << source;
  EXPECT_EQ(source.find("@STAT_VER@"), std::string::npos) << source;
}

TEST_F(SymbolPinning, ASymbolTheLibraryHasOnlyAboveTheCeilingIsUnresolvedNamingIt) {
  // libstdc++ defines __throw_bad_array_new_length only at GLIBCXX_3.4.29.
  SymbolPinningPlan plan = plan_symbol_pinning(
      importing({{"_ZSt28__throw_bad_array_new_lengthv", "GLIBCXX_3.4.29", "libstdc++.so.6", false}}), policy, "x86_64",
      locate);
  EXPECT_TRUE(plan.empty());
  ASSERT_EQ(plan.unresolved.size(), 1u);
  EXPECT_EQ(plan.unresolved[0],
            "_ZSt28__throw_bad_array_new_lengthv@GLIBCXX_3.4.29: libstdc++.so.6 defines no version of it within the "
            "ceiling, and kcheck has no substitute");
}

TEST_F(SymbolPinning, ANamedVersionOrABareVersionNeedCannotBePinnedAndSaysWhy) {
  ElfFacts module = importing({{"__libc_internal", "GLIBC_PRIVATE", "libc.so.6", false}});
  module.version_needs.push_back({"GLIBC_ABI_DT_RELR", "libc.so.6", false});
  SymbolPinningPlan plan = plan_symbol_pinning(module, policy, "x86_64", locate);
  EXPECT_TRUE(plan.empty());
  ASSERT_EQ(plan.unresolved.size(), 2u);
  EXPECT_NE(plan.unresolved[0].find("__libc_internal@GLIBC_PRIVATE: the named version GLIBC_PRIVATE is not allowed"),
            std::string::npos)
      << plan.unresolved[0];
  EXPECT_NE(plan.unresolved[1].find("libc.so.6 needs GLIBC_ABI_DT_RELR in .gnu.version_r, which no import uses"),
            std::string::npos)
      << plan.unresolved[1];
}

TEST_F(SymbolPinning, AWeakVersionNeedIsNotTheBuildersProblem) {
  ElfFacts module;
  module.version_needs.push_back({"GLIBC_ABI_DT_RELR", "libc.so.6", true});
  SymbolPinningPlan plan = plan_symbol_pinning(module, policy, "x86_64", locate);
  EXPECT_TRUE(plan.empty());
  EXPECT_TRUE(plan.unresolved.empty());
}

TEST_F(SymbolPinning, AnArchThePolicyDoesNotCapGetsNoPlan) {
  SymbolPinningPlan plan =
      plan_symbol_pinning(importing({{"exp", "GLIBC_2.29", "libm.so.6", false}}), policy, "riscv64", locate);
  EXPECT_TRUE(plan.empty());
  EXPECT_TRUE(plan.unresolved.empty());
}

// What the builder fixes or refuses is exactly what KE001 and KE002 report:
// every violation the audit's judgement finds is pinned, substituted or
// unresolved, and nothing else is touched.
TEST_F(SymbolPinning, TheBuilderActsOnExactlyTheViolationsTheAuditReports) {
  ElfFacts module = importing({{"exp", "GLIBC_2.29", "libm.so.6", false},
                               {"memcpy", "GLIBC_2.14", "libc.so.6", false},
                               {"stat", "GLIBC_2.33", "libc.so.6", false},
                               {"_ZSt28__throw_bad_array_new_lengthv", "GLIBCXX_3.4.29", "libstdc++.so.6", false},
                               {"__libc_internal", "GLIBC_PRIVATE", "libc.so.6", false}});
  module.version_needs.push_back({"GLIBC_ABI_DT_RELR", "libc.so.6", false});
  const auto violations = symbol_ceiling_violations(module, policy, "x86_64", every_family);
  SymbolPinningPlan plan = plan_symbol_pinning(module, policy, "x86_64", locate);
  EXPECT_EQ(violations.size(), 5u);
  EXPECT_EQ(plan.pinned.size() + plan.substituted.size() + plan.unresolved.size(), violations.size());
  EXPECT_FALSE(judge_version_node("GLIBC_2.14", policy, "x86_64", every_family).has_value());
  EXPECT_TRUE(judge_version_node("GLIBC_2.29", policy, "x86_64", every_family).has_value());
  EXPECT_FALSE(judge_version_node("GLIBC_2.29", policy, "x86_64", [](std::string_view f) {
                 return f == "GLIBCXX";
               }).has_value());
}

}  // namespace
}  // namespace kcheck
