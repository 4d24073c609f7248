#include <gtest/gtest.h>

#include "checker/metadata/metadata_reader.h"
#include "metadata_test_support.h"

namespace kcheck {
namespace {

using testing::kCleanCpuMetadata;

// The JSON pointers of the schema errors, in order.
std::vector<std::string> error_pointers(const MetadataFacts& facts) {
  std::vector<std::string> pointers;
  for (const MetadataProblem& problem : facts.schema_errors) pointers.push_back(problem.pointer);
  return pointers;
}

// kCleanCpuMetadata with `extra` members spliced in (`extra` starts with a comma).
std::string clean_with(std::string_view extra) {
  std::string text(kCleanCpuMetadata);
  text.insert(text.rfind('}'), extra);
  return text;
}

TEST(MetadataReader, CleanDocumentFillsTheTypedView) {
  const MetadataFacts facts = parse_metadata_text(kCleanCpuMetadata, false);
  EXPECT_TRUE(facts.readable());
  EXPECT_TRUE(facts.schema_errors.empty());
  EXPECT_TRUE(facts.unknown_keys.empty());
  EXPECT_EQ(facts.id, "_relu_cpu_0a1b2c3");
  EXPECT_EQ(facts.name, "relu");
  EXPECT_EQ(facts.version, 1);
  EXPECT_EQ(facts.license, "apache-2.0");
  EXPECT_EQ(facts.python_depends, std::vector<std::string>{});
  EXPECT_EQ(facts.backend_type, "cpu");
  EXPECT_FALSE(facts.backend_archs);
  EXPECT_FALSE(facts.digest_declared);
}

TEST(MetadataReader, SyntaxErrorKeepsLineAndColumn) {
  const MetadataFacts facts = parse_metadata_text("{\n  \"id\": \"x\",\n  \"name\" \"relu\"\n}\n", false);
  EXPECT_FALSE(facts.readable());
  EXPECT_EQ(facts.parse_error_line, 3);
  EXPECT_EQ(facts.parse_error_column, 15);  // the last character of the unexpected token, as nlohmann counts
  EXPECT_NE(facts.parse_error.find("line 3, column 15"), std::string::npos) << facts.parse_error;
}

TEST(MetadataReader, EmptyTextIsASyntaxError) {
  const MetadataFacts facts = parse_metadata_text("", false);
  EXPECT_TRUE(facts.present);
  EXPECT_FALSE(facts.parse_error.empty());
}

TEST(MetadataReader, TopLevelMustBeAnObject) {
  const MetadataFacts facts = parse_metadata_text("[1, 2]", false);
  EXPECT_FALSE(facts.readable());
  EXPECT_EQ(error_pointers(facts), std::vector<std::string>{""});
}

TEST(MetadataReader, EveryRequiredKeyIsReportedWhenMissing) {
  const MetadataFacts facts = parse_metadata_text("{}", false);
  EXPECT_EQ(error_pointers(facts),
            (std::vector<std::string>{"/id", "/name", "/version", "/license", "/python-depends", "/backend"}));
}

TEST(MetadataReader, PythonDependsIsRequired) {
  const MetadataFacts facts = parse_metadata_text(
      R"({"id": "_relu_cpu_0a1b2c3", "name": "relu", "version": 1, "license": "mit", "backend": {"type": "cpu"}})",
      false);
  EXPECT_EQ(error_pointers(facts), std::vector<std::string>{"/python-depends"});
}

TEST(MetadataReader, VersionMustBeANonNegativeInteger) {
  for (const char* version : {"\"1\"", "-1", "1.5", "null"}) {
    std::string text(kCleanCpuMetadata);
    text.replace(text.find("\"version\": 1"), 12, std::string("\"version\": ") + version);
    EXPECT_EQ(error_pointers(parse_metadata_text(text, false)), std::vector<std::string>{"/version"}) << version;
  }
}

TEST(MetadataReader, WrongTypesAndPatternsNameTheirKey) {
  EXPECT_EQ(error_pointers(parse_metadata_text(clean_with(R"(, "upstream": 5)"), false)),
            std::vector<std::string>{"/upstream"});
  std::string text(kCleanCpuMetadata);
  text.replace(text.find("\"relu\""), 6, "\"Relu_Kernel\"");
  EXPECT_EQ(error_pointers(parse_metadata_text(text, false)), std::vector<std::string>{"/name"});
  text = kCleanCpuMetadata;
  text.replace(text.find("[]"), 2, R"(["einops", 3])");
  EXPECT_EQ(error_pointers(parse_metadata_text(text, false)), std::vector<std::string>{"/python-depends/1"});
}

TEST(MetadataReader, BackendTypeMustBeKnown) {
  std::string text(kCleanCpuMetadata);
  text.replace(text.find("\"cpu\"}"), 5, "\"CUDA\"");
  const MetadataFacts facts = parse_metadata_text(text, false);
  EXPECT_EQ(error_pointers(facts), std::vector<std::string>{"/backend/type"});
}

TEST(MetadataReader, ArchsAreRequiredOnlyWhenAsked) {
  EXPECT_EQ(error_pointers(parse_metadata_text(kCleanCpuMetadata, true)), std::vector<std::string>{"/backend/archs"});
  EXPECT_TRUE(parse_metadata_text(kCleanCpuMetadata, false).schema_errors.empty());
  std::string text(kCleanCpuMetadata);
  text.replace(text.find("{\"type\": \"cpu\"}"), 15, R"({"type": "cuda", "archs": ["8.0", "9.0+PTX"]})");
  const MetadataFacts facts = parse_metadata_text(text, true);
  EXPECT_TRUE(facts.schema_errors.empty());
  EXPECT_EQ(facts.backend_archs, (std::vector<std::string>{"8.0", "9.0+PTX"}));
}

TEST(MetadataReader, UnknownTopLevelKeysAreListedNotErrors) {
  const MetadataFacts facts = parse_metadata_text(clean_with(R"(, "licence": "mit", "extra": {})"), false);
  EXPECT_TRUE(facts.schema_errors.empty());
  EXPECT_EQ(facts.unknown_keys, (std::vector<std::string>{"extra", "licence"}));
}

TEST(MetadataReader, GitUrlsFollowTheBuilderRules) {
  for (const char* good : {"https://github.com/org/repo", "git@github.com:org/repo.git", "git+ssh://host/x"}) {
    EXPECT_TRUE(
        parse_metadata_text(clean_with(std::string(R"(, "upstream": ")") + good + "\""), false).schema_errors.empty())
        << good;
  }
  for (const char* bad : {"ftp://host/repo", "github.com:org/repo", "just-a-name", "file:///repo"}) {
    EXPECT_EQ(error_pointers(parse_metadata_text(clean_with(std::string(R"(, "source": ")") + bad + "\""), false)),
              std::vector<std::string>{"/source"})
        << bad;
  }
}

TEST(MetadataReader, KernelDependsEntriesHaveExactlyVersionOrRevision) {
  const MetadataFacts good = parse_metadata_text(
      clean_with(
          R"(, "kernel-depends": [{"repo-id": "org/a", "version": 2}, {"repo-id": "org/b", "revision": "main"}])"),
      false);
  EXPECT_TRUE(good.schema_errors.empty());
  ASSERT_EQ(good.kernel_depends.size(), 2u);
  EXPECT_EQ(good.kernel_depends[0].version, 2);
  EXPECT_EQ(good.kernel_depends[1].revision, "main");

  const MetadataFacts bad = parse_metadata_text(
      clean_with(R"(, "kernel-depends": [{"repo-id": "org/a", "version": 2, "revision": "x"}, {"repo-id": "org/b"},
                                          {"repo-id": "org/c", "version": 1, "pin": true}])"),
      false);
  EXPECT_EQ(error_pointers(bad),
            (std::vector<std::string>{"/kernel-depends/0", "/kernel-depends/1", "/kernel-depends/2/pin"}));
  EXPECT_EQ(error_pointers(parse_metadata_text(clean_with(R"(, "kernel-depends": null)"), false)),
            std::vector<std::string>{"/kernel-depends"});
}

TEST(MetadataReader, ProvenanceShape) {
  const std::string commit(40, 'A');
  const MetadataFacts good = parse_metadata_text(
      clean_with(R"(, "provenance": {"kernel-builder": {"version": "0.18.1"}, "kernel": {"sha": ")" + commit +
                 R"(", "dirty": true}})"),
      false);
  EXPECT_TRUE(good.schema_errors.empty());
  ASSERT_TRUE(good.provenance && good.provenance->kernel);
  EXPECT_EQ(good.provenance->kernel->commit, std::string(40, 'a'));
  EXPECT_EQ(good.provenance->kernel->dirty, true);
  EXPECT_EQ(good.provenance->builder_version, "0.18.1");

  EXPECT_EQ(error_pointers(parse_metadata_text(clean_with(R"(, "provenance": {})"), false)),
            std::vector<std::string>{"/provenance/kernel-builder"});
  EXPECT_EQ(
      error_pointers(parse_metadata_text(
          clean_with(R"(, "provenance": {"kernel-builder": {"version": "1", "commit": "abc1234", "dirty": false}})"),
          false)),
      std::vector<std::string>{"/provenance/kernel-builder/commit"});
  EXPECT_EQ(error_pointers(parse_metadata_text(
                clean_with(R"(, "provenance": {"kernel-builder": {"version": "1", "dirty": false}})"), false)),
            std::vector<std::string>{"/provenance/kernel-builder"});
  EXPECT_EQ(error_pointers(parse_metadata_text(
                clean_with(R"(, "provenance": {"kernel-builder": {"version": "1"}, "kernel": {"commit": ")" + commit +
                           R"(", "sha": ")" + commit + R"(", "dirty": false}})"),
                false)),
            std::vector<std::string>{"/provenance/kernel/sha"});
}

TEST(MetadataReader, DigestShape) {
  const MetadataFacts good =
      parse_metadata_text(clean_with(R"(, "digest": {"algorithm": "md5", "files": {"a/b.py": "xyz"}})"), false);
  EXPECT_TRUE(good.schema_errors.empty());  // an unknown algorithm is KM007's, not a shape problem
  EXPECT_TRUE(good.digest_declared);
  ASSERT_TRUE(good.digest);
  EXPECT_EQ(good.digest->algorithm, "md5");
  EXPECT_EQ(good.digest->files.at("a/b.py"), "xyz");

  const MetadataFacts bad =
      parse_metadata_text(clean_with(R"(, "digest": {"algorithm": "sha256", "files": {"a/b.py": 1}})"), false);
  EXPECT_TRUE(bad.digest_declared);
  EXPECT_FALSE(bad.digest);
  EXPECT_EQ(error_pointers(bad), std::vector<std::string>{"/digest/files/a~1b.py"});

  EXPECT_FALSE(parse_metadata_text(clean_with(R"(, "digest": null)"), false).digest_declared);
}

TEST(MetadataReader, ArchGrammars) {
  for (const char* arch : {"8.0", "9.0a", "10.0f", "12.0+PTX", "9.0a+PTX"})
    EXPECT_TRUE(is_cuda_capability(arch)) << arch;
  for (const char* arch : {"sm_90", "9", "9.0b", "9.0+ptx", " 8.0"}) EXPECT_FALSE(is_cuda_capability(arch)) << arch;
  for (const char* arch : {"gfx90a", "gfx942", "gfx1100"}) EXPECT_TRUE(is_rocm_arch(arch)) << arch;
  for (const char* arch : {"gfx", "GFX942", "gfx90a:xnack-", "942"}) EXPECT_FALSE(is_rocm_arch(arch)) << arch;
}

TEST(MetadataReader, JsonPointerTokensAreEscaped) { EXPECT_EQ(json_pointer_token("a/b~c"), "a~1b~0c"); }

TEST(MetadataReader, ReadsTheVariantFileOnceFromDisk) {
  testing::TemporaryDirectory directory;
  VariantFacts variant;
  variant.directory_name = "torch213-cxx11-cu130-x86_64-linux";
  variant.relative_path = "build/" + variant.directory_name;
  variant.path = directory.path();
  variant.name = testing::cuda_variant_name();

  MetadataFacts missing = read_metadata_facts(variant);
  EXPECT_FALSE(missing.present);
  EXPECT_EQ(missing.relative_path, "build/torch213-cxx11-cu130-x86_64-linux/metadata.json");

  directory.write("metadata.json", kCleanCpuMetadata);
  variant.files = testing::list_entries(directory.path());
  const MetadataFacts read = read_metadata_facts(variant);
  EXPECT_TRUE(read.readable());
  EXPECT_EQ(read.relative_path, "build/torch213-cxx11-cu130-x86_64-linux/metadata.json");
  // A compiled cuda variant needs backend.archs, whatever backend.type says.
  EXPECT_EQ(error_pointers(read), std::vector<std::string>{"/backend/archs"});
}

// Found by fuzz_metadata: a number beyond double's range made nlohmann throw
// out_of_range (not parse_error), which escaped the reader (exit 2).
TEST(MetadataReader, NumberOutOfRangeIsAParseErrorNotAnException) {
  for (const char* text : {"8888888888888888888888e88888888888888888888888{", R"({"version": 1e999999})"}) {
    MetadataFacts facts;
    ASSERT_NO_THROW(facts = parse_metadata_text(text, false)) << text;
    EXPECT_TRUE(facts.present);
    EXPECT_NE(facts.parse_error.find("not valid JSON"), std::string::npos) << facts.parse_error;
  }
}

}  // namespace
}  // namespace kcheck

namespace kcheck {
namespace {

// What the kernels loader (serde_json) refuses, kcheck refuses too (issue #14).
TEST(MetadataReader, ByteOrderMarkIsNotJson) {
  const MetadataFacts facts = parse_metadata_text("\xEF\xBB\xBF" + std::string(testing::kCleanCpuMetadata), false);
  EXPECT_FALSE(facts.readable());
  EXPECT_NE(facts.parse_error.find("byte order mark"), std::string::npos) << facts.parse_error;
  EXPECT_EQ(facts.parse_error_line, 1);
}

TEST(MetadataReader, DuplicateKeysAnywhereAreRefusedWithTheirPlace) {
  std::string top(testing::kCleanCpuMetadata);
  top.insert(top.find('{') + 1, "\"id\": \"_relu_cpu_0a1b2c3\",");
  const MetadataFacts at_top = parse_metadata_text(top, false);
  EXPECT_FALSE(at_top.readable());
  EXPECT_NE(at_top.parse_error.find("key \"id\" occurs twice in the object at the top level"), std::string::npos)
      << at_top.parse_error;
  const MetadataFacts nested =
      parse_metadata_text(clean_with(R"(, "provenance": {"x": [1, {"a": 1}, {"k": 1, "k": 2}]})"), false);
  EXPECT_FALSE(nested.readable());
  EXPECT_NE(nested.parse_error.find("key \"k\" occurs twice in the object at /provenance/x/2"), std::string::npos)
      << nested.parse_error;
  EXPECT_TRUE(parse_metadata_text(clean_with(R"(, "provenance": {"k": {"k": {"k": 1}}})"), false).parse_error.empty());
}

}  // namespace
}  // namespace kcheck
