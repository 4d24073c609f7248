// Each KE rule on the fixture that trips it and on near-misses that must stay
// silent, under the embedded policies.
#include <gtest/gtest.h>

#include "checker/support/demangle.h"

#include "tests/elf/elf_test_support.h"

namespace kcheck::testing {
namespace {

using Codes = std::vector<std::string>;
constexpr const char* kLinuxCpu = "torch213-cxx11-cpu-x86_64-linux";

struct RuleCase {
  std::string fixture;
  std::string policy;
  std::string variant;
  Codes expected;
};

std::ostream& operator<<(std::ostream& out, const RuleCase& c) {
  return out << c.fixture << " under " << c.policy << " in " << c.variant;
}

class NativeRuleFixtures : public ::testing::TestWithParam<RuleCase> {};

TEST_P(NativeRuleFixtures, ProducesExactlyTheExpectedCodes) {
  const RuleCase& c = GetParam();
  KCHECK_REQUIRE_FIXTURE(c.fixture);
  const auto tree = tree_with_module(elf_fixture(c.fixture), c.variant);
  const Findings findings = run_native_rules(tree, load_policy(c.policy));
  std::string messages;
  for (const Finding& finding : findings) messages += finding.code + ": " + finding.message + "\n";
  EXPECT_EQ(codes_of(findings), c.expected) << messages;
}

INSTANTIATE_TEST_SUITE_P(
    Hub, NativeRuleFixtures,
    ::testing::Values(
        RuleCase{"_clean.abi3.so", "hub", kLinuxCpu, {}},  // near-miss for every rule
        RuleCase{"_clean.abi3.so", "hub", "", {}},         // module scope
        RuleCase{"_clean.abi3.so", "hub-legacy", kLinuxCpu, {}},
        RuleCase{"_glibc_229.abi3.so", "hub", kLinuxCpu, {"KE001"}},
        RuleCase{"_packed_relocations.abi3.so", "hub", kLinuxCpu, {"KE001"}},  // GLIBC_ABI_DT_RELR
        RuleCase{"_packed_relocations.abi3.so", "hub-legacy", kLinuxCpu, {"KE001"}},
        RuleCase{"_unpacked_relocations.abi3.so", "hub", kLinuxCpu, {}},
        RuleCase{"_glibcxx_325.abi3.so", "hub", kLinuxCpu, {"KE002"}},
        RuleCase{"_cxx_runtime.abi3.so", "hub", kLinuxCpu, {}},  // dynamic libstdc++ allowed
        RuleCase{"_cxx_runtime.abi3.so", "hub-legacy", kLinuxCpu, {"KE003", "KE003"}},
        RuleCase{"_needs_libelf.abi3.so", "hub", kLinuxCpu, {"KE004"}},
        RuleCase{"_python_imports.abi3.so", "hub", kLinuxCpu, {"KE005", "KE005"}},
        RuleCase{"_plain.so", "hub", kLinuxCpu, {"KE005"}},
        RuleCase{"_torch_registrations.abi3.so", "hub", "torch-stable-abi210-cpu-x86_64-linux", {"KE006", "KE006"}},
        RuleCase{"_torch_registrations.abi3.so", "hub", "torch-stable-abi211-cpu-x86_64-linux", {"KE006"}},
        RuleCase{"_torch_registrations.abi3.so", "hub", kLinuxCpu, {}},  // not a stable-ABI variant
        RuleCase{"_clean.abi3.so", "hub", "torch213-cxx11-cpu-aarch64-linux", {"KE007"}},
        RuleCase{"_clean.abi3.so", "hub", "torch213-cpu-aarch64-darwin", {"KE007"}},
        RuleCase{"_renamed.abi3.so", "hub", kLinuxCpu, {"KE008"}},
        // a program: KE008 a note that it is one; KE001 for this glibc's start file
        RuleCase{"_program.abi3.so", "hub", kLinuxCpu, {"KE001", "KE008"}},
        RuleCase{"_default_visibility.abi3.so", "hub", kLinuxCpu, {"KE009"}},
        RuleCase{"_absolute_rpath.abi3.so", "hub", kLinuxCpu, {"KE010"}},
        RuleCase{"_escaping_rpath.abi3.so", "hub", kLinuxCpu, {"KE010"}},
        RuleCase{"_origin_rpath.abi3.so", "hub", kLinuxCpu, {}},
        RuleCase{"_execstack.abi3.so", "hub", kLinuxCpu, {"KE011"}},
        RuleCase{"_text_relocation.abi3.so", "hub", kLinuxCpu, {"KE011"}},
        RuleCase{"_clean_lazy.abi3.so", "hub", kLinuxCpu, {"KE012"}},
        RuleCase{"_debug_leak.abi3.so", "hub", kLinuxCpu, {"KE012", "KE012"}},
        RuleCase{"_source_path_leak.abi3.so", "hub", kLinuxCpu, {"KE012"}},  // __FILE__ in .rodata
        RuleCase{"_source_path_mapped.abi3.so", "hub", kLinuxCpu, {}}));

INSTANTIATE_TEST_SUITE_P(Foreign, NativeRuleFixtures,
                         ::testing::Values(RuleCase{"_foreign.abi3.so", "hub", kLinuxCpu, {"KE007"}},
                                           RuleCase{
                                               "_foreign.abi3.so", "hub", "torch213-cxx11-cpu-aarch64-linux", {}}));

INSTANTIATE_TEST_SUITE_P(Cuda, NativeRuleFixtures,
                         ::testing::Values(RuleCase{
                             "_cuda_kernel.abi3.so", "hub", "torch213-cxx11-cu130-x86_64-linux", {"KE014"}}));

INSTANTIATE_TEST_SUITE_P(Hip, NativeRuleFixtures,
                         // hipcc leaves the kernel's host stub scale(float*, float, int) visible: KE009.
                         ::testing::Values(RuleCase{
                             "_hip_kernel.abi3.so", "hub", "torch213-cxx11-rocm71-x86_64-linux", {"KE009", "KE014"}}));

INSTANTIATE_TEST_SUITE_P(MachO, NativeRuleFixtures,
                         ::testing::Values(RuleCase{"_macho_15_0.abi3.so", "hub", "torch213-cpu-aarch64-darwin", {}},
                                           RuleCase{"_macho_26_0.abi3.so", "hub", "torch213-metal-aarch64-darwin", {}},
                                           RuleCase{
                                               "_macho_26_0.abi3.so", "hub", "torch213-cpu-aarch64-darwin", {"KE013"}},
                                           RuleCase{"_macho_15_0.abi3.so", "hub", kLinuxCpu, {"KE007"}}));

TEST(NativeRuleMessages, NameTheSymbolItsVersionAndTheCeiling) {
  const auto tree = tree_with_module(elf_fixture("_glibc_229.abi3.so"), kLinuxCpu);
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Codes{"KE001"});
  EXPECT_EQ(findings[0].location.symbol, "exp@GLIBC_2.29");
  EXPECT_NE(findings[0].message.find("GLIBC up to 2.28"), std::string::npos) << findings[0].message;
  EXPECT_EQ(findings[0].file, "build/" + std::string(kLinuxCpu) + "/_glibc_229.abi3.so");
  EXPECT_EQ(findings[0].variant, kLinuxCpu);
}

TEST(NativeRuleMessages, AVersionNeedNoSymbolUsesIsJudgedAndNamed) {
  const auto tree = tree_with_module(elf_fixture("_packed_relocations.abi3.so"), kLinuxCpu);
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Codes{"KE001"});
  EXPECT_EQ(findings[0].location.symbol, "GLIBC_ABI_DT_RELR");
  EXPECT_NE(findings[0].message.find("libc.so.6 needs GLIBC_ABI_DT_RELR (glibc 2.36)"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("GLIBC up to 2.28"), std::string::npos) << findings[0].message;
}

TEST(NativeRuleMessages, AProgramIsSaidToBeOneInsteadOfJudgedAsAModule) {
  const Findings findings =
      run_native_rules(tree_with_module(elf_fixture("_program.abi3.so"), kLinuxCpu), load_policy("hub"));
  const auto note = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.code == "KE008"; });
  ASSERT_NE(note, findings.end());
  EXPECT_EQ(note->severity, Severity::note);
  EXPECT_NE(note->message.find("is a program"), std::string::npos) << note->message;
  EXPECT_NE(note->message.find("KE005, KE008 and KE009 do not apply"), std::string::npos) << note->message;
}

TEST(NativeRuleMessages, NotAbi3NameSaysWhatTheNameFailsToTell) {
  const Findings findings = run_native_rules(tree_with_module(elf_fixture("_plain.so"), kLinuxCpu), load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Codes{"KE005"});
  EXPECT_NE(findings[0].message.find("is not named as an abi3 module (<id>.abi3.so)"), std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[0].message.find("version-specific"), std::string::npos) << findings[0].message;
}

TEST(NativeRuleMessages, ShimNewerThanTheDeclaredStableAbiNamesBothVersions) {
  const auto tree =
      tree_with_module(elf_fixture("_torch_registrations.abi3.so"), "torch-stable-abi210-cpu-x86_64-linux");
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), (Codes{"KE006", "KE006"}));
  const std::string messages = findings[0].message + "\n" + findings[1].message;
  EXPECT_NE(messages.find("imports aoti_torch_cpu_nonzero_static (Torch 2.11 shim) but declares stable ABI 2.10"),
            std::string::npos)
      << messages;
}

TEST(NativeRuleMessages, SourcePathsInReadOnlyDataAreWarnings) {
  const Findings findings =
      run_native_rules(tree_with_module(elf_fixture("_source_path_leak.abi3.so"), kLinuxCpu), load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Codes{"KE012"});
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].location.symbol, "/tmp/build/file_macro.c");
  EXPECT_NE(findings[0].message.find("/tmp/build/file_macro.c"), std::string::npos) << findings[0].message;
  EXPECT_EQ(findings[0].message.find("/tmp/kernel-cache"), std::string::npos) << findings[0].message;
}

TEST(NativeRuleMessages, StableAbiFindingsNameTheSymbolAndItsVersion) {
  const auto tree = tree_with_module(elf_fixture("_python_imports.abi3.so"), kLinuxCpu);
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), (Codes{"KE005", "KE005"}));
  std::string messages = findings[0].message + "\n" + findings[1].message;
  EXPECT_NE(messages.find("PyCode_New, which is not part of the Python Stable ABI"), std::string::npos) << messages;
  EXPECT_NE(messages.find("PyObject_CallNoArgs, added to the Stable ABI in Python 3.10"), std::string::npos)
      << messages;
}

// A name whose every back-reference doubles the demangled text (27 MB from
// 234 bytes in c++filt): kcheck does not demangle it, and KE006 does not pass
// a Torch-looking import it could not judge.
std::string exploding_mangled_name(int doublings) {
  std::string name = "_Z1f1A1PIS_S_E";
  for (int i = 0; i < doublings; ++i)
    name += "S" + std::to_string(i) + "_IS" + std::to_string(i + 1) + "_S" + std::to_string(i + 1) + "_E";
  return name + "5torchv";
}

TEST(Demangle, RefusesNamesPastItsBoundsAndDemanglesRealOnes) {
  EXPECT_EQ(try_demangle("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm"),
            "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create(unsigned "
            "long&, unsigned long)");
  EXPECT_EQ(try_demangle("PyInit__relu"), std::nullopt) << "not mangled";
  EXPECT_EQ(try_demangle(exploding_mangled_name(30)), std::nullopt);
  EXPECT_EQ(try_demangle("_Z" + std::string(kMaxDemangledName, 'a')), std::nullopt);
  EXPECT_EQ(demangle_symbol(exploding_mangled_name(30)), exploding_mangled_name(30));
}

TEST(NativeRuleMessages, AStableAbiImportThatCannotBeDemangledIsNotPassed) {
  auto tree = tree_with_module(elf_fixture("_clean.abi3.so"), "torch-stable-abi211-cpu-x86_64-linux");
  tree.variants[0].native_modules[0].elf->imports.push_back({exploding_mangled_name(30), "", "", false});
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Codes{"KE006"});
  EXPECT_NE(findings[0].message.find("cannot be demangled within kcheck's bounds"), std::string::npos)
      << findings[0].message;
}

TEST(NativeRuleMessages, DefaultVisibilityListsDemangledNames) {
  const auto tree = tree_with_module(elf_fixture("_default_visibility.abi3.so"), kLinuxCpu);
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Codes{"KE009"});
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_NE(findings[0].message.find("kernel_table"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("scale"), std::string::npos) << findings[0].message;
}

TEST(NativeRuleMessages, MissingBindNowIsANoteAndDebugLeaksAreWarnings) {
  const Findings lazy =
      run_native_rules(tree_with_module(elf_fixture("_clean_lazy.abi3.so"), kLinuxCpu), load_policy("hub"));
  ASSERT_EQ(codes_of(lazy), Codes{"KE012"});
  EXPECT_EQ(lazy[0].severity, Severity::note);
  const Findings leaky =
      run_native_rules(tree_with_module(elf_fixture("_debug_leak.abi3.so"), kLinuxCpu), load_policy("hub"));
  ASSERT_EQ(codes_of(leaky), (Codes{"KE012", "KE012"}));
  EXPECT_EQ(leaky[0].severity, Severity::warning);
  EXPECT_EQ(leaky[1].severity, Severity::warning);
  EXPECT_NE((leaky[0].message + leaky[1].message).find("/home/builder/kernel"), std::string::npos);
}

TEST(NativeRuleMessages, RpathInsideANestedModuleMayClimbToTheVariantRoot) {
  // $ORIGIN/../../lib from sub/dir/ stays inside the variant.
  const auto tree =
      tree_with_module(elf_fixture("_escaping_rpath.abi3.so"), kLinuxCpu, "sub/dir/_escaping_rpath.abi3.so");
  EXPECT_EQ(codes_of(run_native_rules(tree, load_policy("hub"))), Codes{});
  const auto shallow =
      tree_with_module(elf_fixture("_escaping_rpath.abi3.so"), kLinuxCpu, "sub/_escaping_rpath.abi3.so");
  EXPECT_EQ(codes_of(run_native_rules(shallow, load_policy("hub"))), Codes{"KE010"});
}

}  // namespace
}  // namespace kcheck::testing
