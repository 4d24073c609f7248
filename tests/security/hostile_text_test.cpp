// Hostile text (issue #14): small inputs that used to crash kcheck or end the
// whole audit. Long strings where std::regex recursed once per character,
// nesting that drove the Python tokenizer's or toml++'s recursion, and a
// device-code arch number that made std::stoul throw. Each must now be a
// finding on its file while the rest of the tree is still audited: kcheck
// runs as a separate process under hard bounds and must exit 1 with the
// exact findings.
#include <gtest/gtest.h>

#include "tests/support/repeated_text.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "tests/security/security_test_support.h"

namespace kcheck::security_test {
namespace {

const std::string kVariant = "torch213-cxx11-cpu-x86_64-linux";
const std::string kVariantPath = "build/" + kVariant;
const std::string kOtherVariantPath = "build/torch212-cxx11-cpu-x86_64-linux";

// The clean two-variant fixture (no finding at all), made hostile by a test.
class HostileText : public ::testing::Test {
 protected:
  void SetUp() override { repo_ = copy_tree_fixture("clean_cpu_variants_from_template", scratch_.path() / "repo"); }

  fs::path variant() const { return repo_ / kVariantPath; }
  std::string in_variant(const std::string& name) const { return kVariantPath + "/" + name; }

  // The audit of the tree; kcheck must end it normally with exit 1.
  std::multiset<std::string> audit_findings() {
    Bounds bounds;
    bounds.cpu_seconds = 60;
    outcome_ = run_kcheck({"--format", "json", "--threads", "2", repo_.string()}, bounds, scratch_.path());
    EXPECT_FALSE(outcome_.killed_at_wall_limit);
    EXPECT_EQ(outcome_.signal, 0) << outcome_.err;
    EXPECT_EQ(outcome_.exit_code, 1) << outcome_.err;
    EXPECT_TRUE(outcome_.report.is_object()) << outcome_.out.substr(0, 2000) << outcome_.err;
    return finding_keys(outcome_.report);
  }

  // The one message of `code` on `file`, or "" (with a failure) when not one.
  std::string only_message(const std::string& code, const std::string& file) const {
    const std::vector<std::string> found = messages(outcome_.report, code, file);
    EXPECT_EQ(found.size(), 1u) << code << "@" << file << "\n" << outcome_.out.substr(0, 3000);
    return found.empty() ? "" : found.front();
  }

  // The codes of the findings, files left out (some are 50,000 characters).
  std::multiset<std::string> codes() const {
    std::multiset<std::string> found;
    for (const std::string& key : finding_keys(outcome_.report)) found.insert(key.substr(0, key.find('@')));
    return found;
  }

  void write(const fs::path& file, const std::string& text) const { std::ofstream(file, std::ios::binary) << text; }

  void edit_metadata(const std::function<void(nlohmann::json&)>& edit) const {
    nlohmann::json metadata = nlohmann::json::parse(read_all(variant() / "metadata.json"));
    edit(metadata);
    write(variant() / "metadata.json", metadata.dump(2));
  }

  ScratchDir scratch_;
  fs::path repo_;
  Outcome outcome_;
};

using testing_support::repeated;

// std::regex matched these and recursed once per character: a 50,000-byte
// string was enough to overflow the stack (exit 139, nothing reported).
TEST_F(HostileText, FiftyThousandCharacterMetadataStringsAreJudgedNotCrashedOn) {
  const std::string long_word = repeated("a", 50000);
  edit_metadata([&](nlohmann::json& metadata) {
    metadata["name"] = long_word + "_";
    metadata["upstream"] = long_word + ":x";
    metadata["backend"]["archs"] = nlohmann::json::array({repeated("9", 50000) + ".0x"});
  });
  audit_findings();
  // The name and upstream (KM002), the name against the other variant's
  // (KM005), the compatibility package named after it (KL004), the id's
  // module part (KO002); the archs of a cpu variant are not judged.
  EXPECT_EQ(codes(), (std::multiset<std::string>{"KL004", "KM002", "KM002", "KM005", "KO002"}))
      << outcome_.out.substr(0, 3000);
  EXPECT_EQ(messages(outcome_.report, "KM002", kOtherVariantPath + "/metadata.json").size(), 0u);
}

TEST_F(HostileText, FiftyThousandCharacterIdSuffixIsJudgedNotCrashedOn) {
  edit_metadata([&](nlohmann::json& metadata) {
    metadata["id"] = metadata["id"].get<std::string>() + repeated("0_", 25000) + "-";
  });
  EXPECT_EQ(audit_findings(),
            (std::multiset<std::string>{"KL008@" + in_variant("_relu_cpu_0a1b2c3.abi3.so"),
                                        "KM003@" + in_variant("metadata.json"), "KM003@" + in_variant("metadata.json"),
                                        "KO002@" + in_variant("metadata.json")}))
      << outcome_.out.substr(0, 3000);
}

TEST_F(HostileText, FiftyThousandCharacterBuildTomlNameAndComponentKeyAreJudged) {
  write(repo_ / "build.toml", "[general]\nname = \"" + repeated("a", 50000) + "_\"\nbackends = [\"cpu\"]\n\n[kernel." +
                                  repeated("b", 50000) + "!x]\nbackend = \"cpu\"\nsrc = []\n");
  const std::multiset<std::string> found = audit_findings();
  EXPECT_EQ(found.count("KC001@build.toml"), 1u) << outcome_.out.substr(0, 3000);  // '!' is not TOML
  write(repo_ / "build.toml", "[general]\nname = \"" + repeated("a", 50000) +
                                  "_\"\nbackends = [\"cpu\"]\n\n[kernel.\"" + repeated("b", 50000) +
                                  "!x\"]\nbackend = \"cpu\"\nsrc = [\"k.cpp\"]\n");
  audit_findings();
  // Besides the missing keys of this minimal file: the name's value and the
  // component name (KC002), and the source file that is not there (KC003).
  EXPECT_EQ(codes(), (std::multiset<std::string>{"KC002", "KC002", "KC002", "KC002", "KC002", "KC002", "KC003"}))
      << outcome_.out.substr(0, 3000);
  const std::vector<std::string> schema = messages(outcome_.report, "KC002", "build.toml");
  EXPECT_EQ(std::count_if(schema.begin(), schema.end(),
                          [](const std::string& m) {
                            return m.starts_with("invalid value \"aaaa") || m.starts_with("component name \"bbbb");
                          }),
            2);
}

// toml++ recursed once per dotted part of a table header.
TEST_F(HostileText, SixtyThousandPartTableHeaderIsANotTomlFinding) {
  write(repo_ / "build.toml", "[general]\nname = \"relu\"\n\n[" + repeated("a.", 60000) + "a]\nx = 1\n");
  EXPECT_EQ(audit_findings(), (std::multiset<std::string>{"KC001@build.toml"})) << outcome_.out.substr(0, 3000);
  EXPECT_NE(only_message("KC001", "build.toml").find("nests deeper than 64 levels"), std::string::npos);
}

TEST_F(HostileText, DeeplyNestedTomlArraysAndInlineTablesAreANotTomlFinding) {
  write(repo_ / "build.toml", "x = " + repeated("[", 100000) + "\n");
  EXPECT_EQ(audit_findings(), (std::multiset<std::string>{"KC001@build.toml"})) << outcome_.out.substr(0, 3000);
  write(repo_ / "build.toml", "x = " + repeated("{a = ", 100000) + "\n");
  EXPECT_EQ(audit_findings(), (std::multiset<std::string>{"KC001@build.toml"})) << outcome_.out.substr(0, 3000);
}

// The tokenizer recursed a few frames per nested f-string (150 KB of them).
TEST_F(HostileText, ThirtyThousandNestedFStringsAreADoesNotCompileFinding) {
  write(variant() / "nested_fstrings.py", "x = " + repeated("f\"{", 30000) + "1" + repeated("}\"", 30000) + "\n");
  write(variant() / "nested_format_specs.py", "x = f\"{1:" + repeated("{1:", 30000) + repeated("}", 30001) + "\"\n");
  write(variant() / "nested_brackets.py", "x = " + repeated("(", 100000) + repeated(")", 100000) + "\n");
  std::string deep_blocks;
  for (int level = 0; level < 300; ++level)
    deep_blocks += std::string(static_cast<std::size_t>(level), ' ') + "if x:\n";
  write(variant() / "nested_blocks.py", deep_blocks + std::string(300, ' ') + "pass\n");
  std::multiset<std::string> expected;
  for (const char* file : {"nested_fstrings.py", "nested_format_specs.py", "nested_brackets.py", "nested_blocks.py"}) {
    expected.insert("KP007@" + in_variant(file));
    expected.insert("KM007@" + in_variant("metadata.json"));  // a file the digest does not list
  }
  EXPECT_EQ(audit_findings(), expected) << outcome_.out.substr(0, 3000);
  EXPECT_NE(only_message("KP007", in_variant("nested_fstrings.py")).find("too many nested f-strings"),
            std::string::npos);
  EXPECT_NE(only_message("KP007", in_variant("nested_brackets.py")).find("too many nested parentheses"),
            std::string::npos);
  EXPECT_NE(only_message("KP007", in_variant("nested_blocks.py")).find("too many levels of indentation"),
            std::string::npos);
}

// An offload bundle entry naming gfx<30 digits>: std::stoul threw while the
// targets were sorted, and the audit ended with "kcheck: stoul", exit 2.
std::string offload_bundle(const std::vector<std::string>& triples) {
  auto u64 = [](std::uint64_t value) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>(value >> (8 * i));
    return bytes;
  };
  std::string bundle = "__CLANG_OFFLOAD_BUNDLE__" + u64(triples.size());
  for (const std::string& triple : triples) bundle += u64(0) + u64(0) + u64(triple.size()) + triple;
  return bundle;
}

TEST_F(HostileText, ThirtyDigitGfxTargetIsListedAndTheRestOfTheTreeStillAudited) {
  const fs::path module = variant() / "_relu_cpu_0a1b2c3.abi3.so";
  ASSERT_TRUE(fs::exists(module)) << "the fixture's module moved";
  const fs::path bundle = scratch_.path() / "bundle.bin";
  write(bundle, offload_bundle({"hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx" + repeated("9", 30),
                                "hipv4-amdgcn-amd-amdhsa--gfx1030"}));
  const std::string command = "objcopy --add-section .hip_fatbin='" + bundle.string() + "' '" + module.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  write(variant() / "broken.py", "def f(:\n");
  // The module is listed and judged (KE014), the other file still is
  // (KP007), and the digest sees both changes (KM007).
  EXPECT_EQ(audit_findings(),
            (std::multiset<std::string>{"KE014@" + in_variant("_relu_cpu_0a1b2c3.abi3.so"),
                                        "KP007@" + in_variant("broken.py"), "KM007@" + in_variant("metadata.json"),
                                        "KM007@" + in_variant("metadata.json")}))
      << outcome_.out.substr(0, 3000);
  EXPECT_NE(only_message("KE014", in_variant("_relu_cpu_0a1b2c3.abi3.so")).find("gfx" + repeated("9", 30)),
            std::string::npos);
}

}  // namespace
}  // namespace kcheck::security_test
