#include <gtest/gtest.h>

#include <random>
#include <string>

#include "checker/metadata/digest.h"
#include "metadata_test_support.h"

namespace kcheck {
namespace {

// Known answers, computed independently with Python:
//   base64.b64encode(hashlib.sha256(b"abc").digest())
constexpr const char* kSha256Empty = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
constexpr const char* kSha256Abc = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=";
constexpr const char* kSha256Hello = "WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";  // b"hello\n"
constexpr const char* kSha512Abc =
    "3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==";

TEST(Digest, HashesMatchKnownAnswers) {
  EXPECT_EQ(hash_bytes("", DigestAlgorithm::sha256), kSha256Empty);
  EXPECT_EQ(hash_bytes("abc", DigestAlgorithm::sha256), kSha256Abc);
  EXPECT_EQ(hash_bytes("hello\n", DigestAlgorithm::sha256), kSha256Hello);
  EXPECT_EQ(hash_bytes("abc", DigestAlgorithm::sha512), kSha512Abc);
}

TEST(Digest, AlgorithmNamesAreExactLowercase) {
  EXPECT_EQ(parse_digest_algorithm("sha256"), DigestAlgorithm::sha256);
  EXPECT_EQ(parse_digest_algorithm("sha512"), DigestAlgorithm::sha512);
  EXPECT_FALSE(parse_digest_algorithm("SHA256"));
  EXPECT_FALSE(parse_digest_algorithm("sha-256"));
  EXPECT_FALSE(parse_digest_algorithm("md5"));
}

// A variant on disk exercising every inclusion and exclusion of §4.5.
class DigestOfVariant : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_.write("__init__.py", "abc");
    directory_.write("_ops.py", "");
    directory_.write("sub/data.txt", "hello\n");
    directory_.write("sub/metadata.json", "abc");  // only the root copy is excluded
    directory_.write("metadata.json", "{}");
    directory_.write("metadata.json.sigstore", "sig");
    directory_.write("__pycache__/_ops.cpython-312.pyc", "bytecode");
    directory_.write("sub/__pycache__/x.txt", "cache");
    directory_.write("stale.pyc", "bytecode");
    std::filesystem::create_symlink("__init__.py", directory_.path() / "alias.py");
    std::filesystem::create_symlink("sub", directory_.path() / "linked_dir");
    variant_.directory_name = "torch212-cxx11-cpu-x86_64-linux";
    variant_.path = directory_.path();
    variant_.files = testing::list_entries(directory_.path());
  }

  const nlohmann::json& expected_files() const {
    static const nlohmann::json files = {{"__init__.py", kSha256Abc},
                                         {"_ops.py", kSha256Empty},
                                         {"alias.py", kSha256Abc},
                                         {"sub/data.txt", kSha256Hello},
                                         {"sub/metadata.json", kSha256Abc}};
    return files;
  }

  MetadataFacts metadata_with_digest(const nlohmann::json& files, const std::string& algorithm = "sha256") const {
    nlohmann::json document = nlohmann::json::parse(testing::kCleanCpuMetadata);
    document["digest"] = {{"algorithm", algorithm}, {"files", files}};
    return parse_metadata_text(document.dump(), false);
  }

  testing::TemporaryDirectory directory_;
  VariantFacts variant_;
};

TEST_F(DigestOfVariant, CoveredFilesFollowTheExclusions) {
  std::vector<std::string> covered;
  for (const FileEntry* entry : digest_covered_files(variant_)) covered.push_back(entry->relative_path);
  EXPECT_EQ(covered,
            (std::vector<std::string>{"__init__.py", "_ops.py", "alias.py", "sub/data.txt", "sub/metadata.json"}));
}

TEST_F(DigestOfVariant, ComputedDigestIsTheBuilderObject) {
  for (unsigned threads : {1u, 4u, 0u}) {
    const ComputedDigest computed = compute_variant_digest(variant_, DigestAlgorithm::sha256, threads);
    EXPECT_TRUE(computed.errors.empty());
    EXPECT_EQ(computed.digest, (nlohmann::json{{"algorithm", "sha256"}, {"files", expected_files()}})) << threads;
  }
  const ComputedDigest sha512 = compute_variant_digest(variant_, DigestAlgorithm::sha512, 2);
  EXPECT_EQ(sha512.digest["algorithm"], "sha512");
  EXPECT_EQ(sha512.digest["files"]["__init__.py"], kSha512Abc);
}

TEST_F(DigestOfVariant, MatchingDigestVerifiesClean) {
  const DigestCheck check = verify_digest(variant_, metadata_with_digest(expected_files()), 3);
  EXPECT_TRUE(check.has_digest);
  EXPECT_EQ(check.algorithm, "sha256");
  EXPECT_TRUE(check.clean());
}

TEST_F(DigestOfVariant, EveryViolationIsCollected) {
  nlohmann::json files = expected_files();
  files["_ops.py"] = kSha256Abc;        // mismatch
  files["gone.py"] = kSha256Abc;        // missing
  files["metadata.json"] = kSha256Abc;  // excluded from the digest: missing on the digest's view
  files.erase("sub/data.txt");          // unlisted
  const DigestCheck check = verify_digest(variant_, metadata_with_digest(files), 0);
  EXPECT_TRUE(check.error.empty());
  EXPECT_EQ(check.mismatched, std::vector<std::string>{"_ops.py"});
  EXPECT_EQ(check.missing, (std::vector<std::string>{"gone.py", "metadata.json"}));
  EXPECT_EQ(check.unlisted, std::vector<std::string>{"sub/data.txt"});
  EXPECT_TRUE(check.unreadable.empty());
}

TEST_F(DigestOfVariant, Sha512DigestVerifies) {
  nlohmann::json files = compute_variant_digest(variant_, DigestAlgorithm::sha512, 1).digest["files"];
  EXPECT_TRUE(verify_digest(variant_, metadata_with_digest(files, "sha512"), 2).clean());
  // The same sha512 hashes read as sha256 all mismatch.
  EXPECT_EQ(verify_digest(variant_, metadata_with_digest(files, "sha256"), 2).mismatched.size(), 5u);
}

TEST_F(DigestOfVariant, UnknownAlgorithmStopsVerification) {
  const DigestCheck check = verify_digest(variant_, metadata_with_digest(nlohmann::json::object(), "md5"), 1);
  EXPECT_NE(check.error.find("'md5'"), std::string::npos) << check.error;
  EXPECT_TRUE(check.unlisted.empty());
}

TEST_F(DigestOfVariant, NoDigestIsReportedAsAbsent) {
  const DigestCheck check = verify_digest(variant_, parse_metadata_text(testing::kCleanCpuMetadata, false), 1);
  EXPECT_FALSE(check.has_digest);
  EXPECT_TRUE(check.clean());
}

TEST(Digest, ManyFilesHashInParallelLikeOneByOne) {
  testing::TemporaryDirectory directory;
  for (int index = 0; index < 300; ++index) {
    directory.write("f" + std::to_string(index) + ".bin", std::string(static_cast<std::size_t>(index) * 97, 'x'));
  }
  VariantFacts variant;
  variant.path = directory.path();
  variant.files = testing::list_entries(directory.path());
  const ComputedDigest parallel = compute_variant_digest(variant, DigestAlgorithm::sha256, 8);
  ASSERT_EQ(parallel.digest["files"].size(), 300u);
  for (int index = 0; index < 300; ++index) {
    EXPECT_EQ(parallel.digest["files"]["f" + std::to_string(index) + ".bin"],
              hash_bytes(std::string(static_cast<std::size_t>(index) * 97, 'x'), DigestAlgorithm::sha256));
  }
}

// Files over several of the 2 MiB windows hash_file maps, of sizes on and
// off the window and 1 KiB step boundaries, hashed in place with the bytes
// ahead prefetched (issue #32): the hash of their bytes taken at once.
TEST(Digest, FilesOverSeveralWindowsHashLikeTheirBytes) {
  testing::TemporaryDirectory directory;
  std::mt19937 random(32);
  constexpr std::size_t kWindow = std::size_t{2} << 20;
  for (const std::size_t size : {std::size_t{1023}, std::size_t{1025}, kWindow - 1, kWindow, kWindow + 1,
                                 kWindow + 1023, 2 * kWindow + 2048, 5 * kWindow / 2 + 517}) {
    std::string bytes(size, '\0');
    for (char& byte : bytes) byte = static_cast<char>(random());
    const std::string name = "f" + std::to_string(size) + ".bin";
    directory.write(name, bytes);
    for (const DigestAlgorithm algorithm : {DigestAlgorithm::sha256, DigestAlgorithm::sha512}) {
      std::string error;
      EXPECT_EQ(hash_file(directory.path() / name, algorithm, error), hash_bytes(bytes, algorithm))
          << size << " bytes, " << to_string(algorithm) << error;
    }
  }
}

}  // namespace
}  // namespace kcheck
