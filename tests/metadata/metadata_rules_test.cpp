#include <gtest/gtest.h>

#include "checker/core/rule_registry.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "metadata_test_support.h"

namespace kcheck {
namespace {

using testing::cpu_variant_name;
using testing::cuda_variant_name;
using testing::kCleanCpuMetadata;
using testing::run_rule;
using testing::tree_of;
using testing::variant_with_metadata;

constexpr const char* kCpu212 = "torch212-cxx11-cpu-x86_64-linux";
constexpr const char* kCpu213 = "torch213-cxx11-cpu-x86_64-linux";
constexpr const char* kCuda = "torch213-cxx11-cu130-x86_64-linux";

std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
  std::string result(text);
  const std::size_t at = result.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) result.replace(at, from.size(), to);
  return result;
}

std::string with_members(std::string_view extra) {
  std::string text(kCleanCpuMetadata);
  text.insert(text.rfind('}'), extra);
  return text;
}

VariantFacts cpu_variant(std::string_view metadata = kCleanCpuMetadata, const std::string& directory = kCpu212) {
  return variant_with_metadata(directory, cpu_variant_name(directory.substr(5, 3)), metadata);
}

TreeFacts one_variant(std::string_view metadata) { return tree_of({cpu_variant(metadata)}); }

// "CODE@pointer" for each finding, to assert code and place together.
std::vector<std::string> codes_at(const Findings& findings) {
  std::vector<std::string> result;
  for (const Finding& finding : findings) result.push_back(finding.code + "@" + finding.location.json_pointer);
  return result;
}

std::vector<Severity> severities(const Findings& findings) {
  std::vector<Severity> result;
  for (const Finding& finding : findings) result.push_back(finding.severity);
  return result;
}

TEST(MetadataRules, RegistryHoldsKm001ToKm010WithExplanations) {
  RuleRegistry registry;
  add_rules(registry, kMetadataRules);
  std::vector<std::string> codes;
  for (const Rule* rule : registry.rules()) {
    codes.push_back(rule->info().code);
    EXPECT_FALSE(rule->info().title.empty());
    EXPECT_FALSE(rule->info().example_violation.empty()) << rule->info().code;
    EXPECT_FALSE(rule->info().example_fix.empty()) << rule->info().code;
  }
  EXPECT_EQ(codes, (std::vector<std::string>{"KM001", "KM002", "KM003", "KM004", "KM005", "KM006", "KM007", "KM008",
                                             "KM009", "KM010"}));
}

TEST(MetadataRules, CleanVariantIsSilentForEveryRule) {
  RuleRegistry registry;
  add_rules(registry, kMetadataRules);
  TreeFacts tree = tree_of({cpu_variant(kCleanCpuMetadata, kCpu212), cpu_variant(kCleanCpuMetadata, kCpu213)});
  for (VariantFacts& variant : tree.variants) {
    variant.metadata.digest_declared = true;  // a digest that verified (KM007 judges the DigestCheck)
    variant.metadata.digest = DeclaredDigest{"sha256", {}};
    variant.digest = DigestCheck{.has_digest = true, .algorithm = "sha256"};
  }
  AuditOptions options;
  options.repo_id = "kernels-community/relu";
  for (const Rule* rule : registry.rules()) {
    EXPECT_TRUE(run_rule(*rule, tree, testing::test_policy(), options).empty()) << rule->info().code;
  }
}

TEST(Km001, MissingMetadataFires) {
  TreeFacts tree = tree_of({cpu_variant()});
  tree.variants[0].metadata = MetadataFacts{};
  tree.variants[0].metadata.relative_path = "build/x/metadata.json";
  const Findings findings = run_rule(*make_km001_metadata_missing(), tree);
  ASSERT_EQ(codes_at(findings), std::vector<std::string>{"KM001@"});
  EXPECT_EQ(findings[0].file, std::string("build/") + kCpu212 + "/metadata.json");
  EXPECT_EQ(findings[0].variant, kCpu212);
}

TEST(Km001, PresentButBrokenMetadataIsNotMissing) {
  EXPECT_TRUE(run_rule(*make_km001_metadata_missing(), one_variant("{")).empty());
}

TEST(Km001, ModuleScopeHasNoMetadataToRequire) {
  TreeFacts tree = tree_of({cpu_variant()});
  tree.scope = AuditScope::module;
  tree.variants[0].metadata = MetadataFacts{};
  EXPECT_TRUE(run_rule(*make_km001_metadata_missing(), tree).empty());
}

TEST(Km002, SyntaxErrorCarriesLineAndColumn) {
  const Findings findings = run_rule(*make_km002_metadata_schema(), one_variant("{\n  \"id\": ,\n}"));
  ASSERT_EQ(codes_at(findings), std::vector<std::string>{"KM002@"});
  EXPECT_EQ(findings[0].location.line, 2);
  EXPECT_GT(findings[0].location.column, 0);
}

TEST(Km002, SchemaErrorsAreErrorsAndUnknownKeysWarnings) {
  const std::string metadata = with_members(R"(, "homepage": "x")");
  const Findings findings =
      run_rule(*make_km002_metadata_schema(), one_variant(replaced(metadata, R"("python-depends": [], )", "")));
  EXPECT_EQ(codes_at(findings), (std::vector<std::string>{"KM002@/python-depends", "KM002@/homepage"}));
  EXPECT_EQ(severities(findings), (std::vector<Severity>{Severity::error, Severity::warning}));
  EXPECT_NE(findings[0].message.find("python-depends"), std::string::npos);
}

TEST(Km002, MissingArchsForCompiledCudaVariant) {
  const std::string cuda_metadata = replaced(replaced(kCleanCpuMetadata, R"("cpu"})", R"("cuda"})"), "_cpu_", "_cuda_");
  const VariantFacts variant = variant_with_metadata(kCuda, cuda_variant_name(), cuda_metadata);
  EXPECT_EQ(codes_at(run_rule(*make_km002_metadata_schema(), tree_of({variant}))),
            std::vector<std::string>{"KM002@/backend/archs"});
  const VariantFacts with_archs = variant_with_metadata(
      kCuda, cuda_variant_name(), replaced(cuda_metadata, R"("cuda"})", R"("cuda", "archs": ["8.0"]})"));
  EXPECT_TRUE(run_rule(*make_km002_metadata_schema(), tree_of({with_archs})).empty());
}

TEST(Km003, InvalidIdentifierFires) {
  const std::string metadata = replaced(kCleanCpuMetadata, "_relu_cpu_0a1b2c3", "relu-cpu");
  EXPECT_EQ(codes_at(run_rule(*make_km003_id_consistency(), one_variant(metadata))),
            std::vector<std::string>{"KM003@/id"});
  EXPECT_EQ(codes_at(run_rule(*make_km003_id_consistency(), one_variant(replaced(metadata, "relu-cpu", "class")))),
            std::vector<std::string>{"KM003@/id"});
}

NativeModuleFacts elf_module(std::string relative_path, std::vector<std::string> exports) {
  NativeModuleFacts module;
  module.relative_path = std::move(relative_path);
  module.elf = ElfFacts{};
  for (std::string& name : exports) module.elf->exports.push_back({.name = std::move(name)});
  return module;
}

// The module's file name is KL008's and its PyInit_ export KE008's: KM003
// stays silent so that one disagreement gives one finding.
TEST(Km003, LeavesModuleNameAndPyInitToKl008AndKe008) {
  TreeFacts tree = one_variant(kCleanCpuMetadata);
  tree.variants[0].native_modules = {elf_module("_relu_cpu_ffffff0.abi3.so", {"PyInit__relu_cpu_ffffff0"})};
  NativeModuleFacts macho;
  macho.relative_path = "_helpers.abi3.so";
  macho.macho = MachOFacts{.exported_symbols = {"PyInit__helpers"}};
  tree.variants[0].native_modules.push_back(macho);
  EXPECT_TRUE(run_rule(*make_km003_id_consistency(), tree).empty());
}

TEST(Km003, OpsNamespaceMustMatchTheId) {
  TreeFacts tree = one_variant(kCleanCpuMetadata);
  PythonFileFacts ops;
  ops.relative_path = "_ops.py";
  ops.torch_ops_chains = {{"torch.ops._relu_cpu_0a1b2c3", 3}};
  tree.variants[0].python_files = {ops};
  EXPECT_TRUE(run_rule(*make_km003_id_consistency(), tree).empty());

  tree.variants[0].python_files[0].torch_ops_chains = {{"torch.ops._relu_cpu_ffffff0", 3},
                                                       {"torch.ops._relu_cpu_ffffff0.relu", 7}};
  const Findings findings = run_rule(*make_km003_id_consistency(), tree);
  ASSERT_EQ(codes_at(findings), std::vector<std::string>{"KM003@/id"});  // one per namespace, not per use
  EXPECT_NE(findings[0].message.find("line 3"), std::string::npos);

  tree.variants[0].python_files[0].relative_path = "layers.py";  // other files are KO004's business
  EXPECT_TRUE(run_rule(*make_km003_id_consistency(), tree).empty());
}

TEST(Km004, BackendTypeMustMatchTheVariantName) {
  const std::string cuda_type = replaced(kCleanCpuMetadata, R"("cpu"})", R"("cuda"})");
  EXPECT_EQ(codes_at(run_rule(*make_km004_backend_matches_variant(), one_variant(cuda_type))),
            std::vector<std::string>{"KM004@/backend/type"});
  EXPECT_TRUE(run_rule(*make_km004_backend_matches_variant(), one_variant(kCleanCpuMetadata)).empty());
}

TEST(Km004, NpuMeansCannAndUniversalIsFree) {
  VariantName npu;
  npu.kind = VariantKind::python_only;
  npu.backend = "npu";
  const std::string cann = replaced(kCleanCpuMetadata, R"("cpu"})", R"("cann"})");
  EXPECT_TRUE(run_rule(*make_km004_backend_matches_variant(), tree_of({variant_with_metadata("torch-npu", npu, cann)}))
                  .empty());
  EXPECT_EQ(codes_at(run_rule(*make_km004_backend_matches_variant(),
                              tree_of({variant_with_metadata("torch-npu", npu, kCleanCpuMetadata)}))),
            std::vector<std::string>{"KM004@/backend/type"});
  VariantName universal = npu;
  universal.backend = "universal";
  EXPECT_TRUE(run_rule(*make_km004_backend_matches_variant(),
                       tree_of({variant_with_metadata("torch-universal", universal, cann)}))
                  .empty());
}

TEST(Km005, VersionAndNameMustAgreeAcrossVariants) {
  const std::string version2 = replaced(kCleanCpuMetadata, R"("version": 1)", R"("version": 2)");
  const TreeFacts tree = tree_of({cpu_variant(kCleanCpuMetadata, kCpu212), cpu_variant(version2, kCpu213)});
  const Findings findings = run_rule(*make_km005_name_version_consistency(), tree);
  ASSERT_EQ(codes_at(findings), std::vector<std::string>{"KM005@/version"});
  EXPECT_EQ(findings[0].variant, kCpu213);
  EXPECT_NE(findings[0].message.find(kCpu212), std::string::npos);

  const std::string renamed = replaced(kCleanCpuMetadata, R"("relu")", R"("relu-fast")");
  EXPECT_EQ(codes_at(run_rule(*make_km005_name_version_consistency(),
                              tree_of({cpu_variant(kCleanCpuMetadata, kCpu212), cpu_variant(renamed, kCpu213)}))),
            std::vector<std::string>{"KM005@/name"});
}

TEST(Km005, NameDifferentFromRepoIdIsAWarning) {
  AuditOptions options;
  options.repo_id = "kernels-community/activation";
  const Findings findings =
      run_rule(*make_km005_name_version_consistency(), one_variant(kCleanCpuMetadata), testing::test_policy(), options);
  EXPECT_EQ(codes_at(findings), std::vector<std::string>{"KM005@/name"});
  EXPECT_EQ(severities(findings), std::vector<Severity>{Severity::warning});
  options.repo_id = "kernels-community/ReLU";
  EXPECT_TRUE(
      run_rule(*make_km005_name_version_consistency(), one_variant(kCleanCpuMetadata), testing::test_policy(), options)
          .empty());
}

TEST(Km006, DependencyOutsideTheBackendListFires) {
  const std::string numpy =
      replaced(kCleanCpuMetadata, R"("python-depends": [])", R"("python-depends": ["einops", "numpy"])");
  const Findings findings = run_rule(*make_km006_python_depends_allowed(), one_variant(numpy));
  ASSERT_EQ(codes_at(findings), std::vector<std::string>{"KM006@/python-depends/1"});
  EXPECT_NE(findings[0].message.find("einops"), std::string::npos);  // names what is allowed
}

TEST(Km006, BackendListsApplyToTheirBackendOnly) {
  const std::string cutlass_on_cpu =
      replaced(kCleanCpuMetadata, R"("python-depends": [])", R"("python-depends": ["nvidia-cutlass-dsl"])");
  EXPECT_EQ(codes_at(run_rule(*make_km006_python_depends_allowed(), one_variant(cutlass_on_cpu))),
            std::vector<std::string>{"KM006@/python-depends/0"});
  const std::string cutlass_on_cuda = replaced(cutlass_on_cpu, R"("cpu"})", R"("cuda"})");
  EXPECT_TRUE(run_rule(*make_km006_python_depends_allowed(), one_variant(cutlass_on_cuda)).empty());

  const std::string backends =
      with_members(R"(, "python-depends-backends": {"cuda": ["nvidia-cutlass-dsl", "einops"]})");
  EXPECT_EQ(codes_at(run_rule(*make_km006_python_depends_allowed(), one_variant(backends))),
            std::vector<std::string>{"KM006@/python-depends-backends/cuda/1"});
}

VariantFacts variant_with_digest_check(DigestCheck check) {
  VariantFacts variant = cpu_variant(with_members(R"(, "digest": {"algorithm": "sha256", "files": {}})"));
  variant.digest = std::move(check);
  return variant;
}

TEST(Km007, EveryDigestViolationIsAFinding) {
  const DigestCheck check{.has_digest = true,
                          .algorithm = "sha256",
                          .missing = {"gone.py"},
                          .mismatched = {"sub/x.py"},
                          .unlisted = {"new.py"}};
  const Findings findings = run_rule(*make_km007_digest_matches_files(), tree_of({variant_with_digest_check(check)}));
  EXPECT_EQ(codes_at(findings), (std::vector<std::string>{"KM007@/digest/files/gone.py",
                                                          "KM007@/digest/files/sub~1x.py", "KM007@/digest/files"}));
  EXPECT_EQ(severities(findings), std::vector<Severity>(3, Severity::error));
  EXPECT_NE(findings[2].message.find("new.py"), std::string::npos);
}

TEST(Km007, UnknownAlgorithmFires) {
  const DigestCheck check{.has_digest = true, .algorithm = "md5", .error = "unknown digest algorithm 'md5'"};
  EXPECT_EQ(codes_at(run_rule(*make_km007_digest_matches_files(), tree_of({variant_with_digest_check(check)}))),
            std::vector<std::string>{"KM007@/digest/algorithm"});
}

TEST(Km007, NoDigestIsAWarningAndAVerifiedOneIsSilent) {
  const Findings no_digest = run_rule(*make_km007_digest_matches_files(), one_variant(kCleanCpuMetadata));
  EXPECT_EQ(codes_at(no_digest), std::vector<std::string>{"KM007@"});
  EXPECT_EQ(severities(no_digest), std::vector<Severity>{Severity::warning});
  const DigestCheck clean{.has_digest = true, .algorithm = "sha256"};
  EXPECT_TRUE(run_rule(*make_km007_digest_matches_files(), tree_of({variant_with_digest_check(clean)})).empty());
}

TEST(Km007, MalformedDigestIsLeftToKm002) {
  const VariantFacts variant = cpu_variant(with_members(R"(, "digest": {"algorithm": "sha256"})"));
  EXPECT_TRUE(run_rule(*make_km007_digest_matches_files(), tree_of({variant})).empty());
  EXPECT_EQ(codes_at(run_rule(*make_km002_metadata_schema(), tree_of({variant}))),
            std::vector<std::string>{"KM002@/digest/files"});
}

TEST(Km008, DirtyKernelOrBuilderWarns) {
  const std::string commit(40, 'a');
  const auto provenance = [&](bool builder_dirty, bool kernel_dirty) {
    return with_members(R"(, "provenance": {"kernel-builder": {"version": "0.18.1", "commit": ")" + commit +
                        R"(", "dirty": )" + (builder_dirty ? "true" : "false") + R"(}, "kernel": {"commit": ")" +
                        commit + R"(", "dirty": )" + (kernel_dirty ? "true" : "false") + "}}");
  };
  EXPECT_TRUE(run_rule(*make_km008_provenance_dirty(), one_variant(provenance(false, false))).empty());
  const Findings kernel = run_rule(*make_km008_provenance_dirty(), one_variant(provenance(false, true)));
  EXPECT_EQ(codes_at(kernel), std::vector<std::string>{"KM008@/provenance/kernel/dirty"});
  EXPECT_EQ(severities(kernel), std::vector<Severity>{Severity::warning});
  EXPECT_EQ(codes_at(run_rule(*make_km008_provenance_dirty(), one_variant(provenance(true, false)))),
            std::vector<std::string>{"KM008@/provenance/kernel-builder/dirty"});
}

TEST(Km009, LicenseOutsideTheAcceptedListWarns) {
  const Findings findings = run_rule(*make_km009_license_accepted(),
                                     one_variant(replaced(kCleanCpuMetadata, "apache-2.0", "Apache License 2.0")));
  EXPECT_EQ(codes_at(findings), std::vector<std::string>{"KM009@/license"});
  EXPECT_EQ(severities(findings), std::vector<Severity>{Severity::warning});
}

TEST(Km009, LicenseComparisonIgnoresCase) {
  EXPECT_TRUE(
      run_rule(*make_km009_license_accepted(), one_variant(replaced(kCleanCpuMetadata, "apache-2.0", "Apache-2.0")))
          .empty());
}

VariantFacts cuda_variant(const std::string& archs_json) {
  const std::string metadata =
      replaced(replaced(kCleanCpuMetadata, R"({"type": "cpu"})", R"({"type": "cuda", "archs": )" + archs_json + "}"),
               "_cpu_", "_cuda_");
  return variant_with_metadata(kCuda, cuda_variant_name(), metadata);
}

TEST(Km010, MalformedCudaArchFires) {
  const Findings findings =
      run_rule(*make_km010_backend_archs(), tree_of({cuda_variant(R"(["8.0", "sm_90", "9.0a+PTX"])")}));
  EXPECT_EQ(codes_at(findings), std::vector<std::string>{"KM010@/backend/archs/1"});
  EXPECT_EQ(severities(findings), std::vector<Severity>{Severity::error});
  EXPECT_TRUE(
      run_rule(*make_km010_backend_archs(), tree_of({cuda_variant(R"(["10.0", "12.0f", "9.0+PTX"])")})).empty());
}

TEST(Km010, MalformedRocmArchFires) {
  VariantName rocm = cuda_variant_name();
  rocm.compute = "rocm71";
  rocm.backend = "rocm";
  const std::string metadata =
      replaced(kCleanCpuMetadata, R"({"type": "cpu"})", R"({"type": "rocm", "archs": ["gfx942", "MI300"]})");
  EXPECT_EQ(codes_at(run_rule(*make_km010_backend_archs(),
                              tree_of({variant_with_metadata("torch213-cxx11-rocm71-x86_64-linux", rocm, metadata)}))),
            std::vector<std::string>{"KM010@/backend/archs/1"});
}

TEST(Km010, DeclaredArchsDifferingFromDeviceCodeWarn) {
  VariantFacts variant = cuda_variant(R"(["8.0", "9.0+PTX"])");
  NativeModuleFacts module = elf_module("_relu_cuda_0a1b2c3.abi3.so", {});
  module.elf->device_code = DeviceCodeFacts{.cuda_sass_archs = {"sm_80", "sm_90"}, .cuda_ptx_archs = {"compute_90"}};
  variant.native_modules = {module};
  EXPECT_TRUE(run_rule(*make_km010_backend_archs(), tree_of({variant})).empty());

  variant.native_modules[0].elf->device_code->cuda_sass_archs = {"sm_80", "sm_86"};
  const Findings findings = run_rule(*make_km010_backend_archs(), tree_of({variant}));
  ASSERT_EQ(codes_at(findings), std::vector<std::string>{"KM010@/backend/archs"});
  EXPECT_EQ(severities(findings), std::vector<Severity>{Severity::warning});
  EXPECT_NE(findings[0].message.find("declared but not embedded: sm_90"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("embedded but not declared: sm_86"), std::string::npos) << findings[0].message;
}

}  // namespace
}  // namespace kcheck
