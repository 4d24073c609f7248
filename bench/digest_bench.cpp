// SHA-256 of whole files as the digest check and the scan cache compute it
// (2 MiB mapped windows + OpenSSL, checker/metadata/digest.cpp), on one
// thread: the per-core hashing rate, which bench/paired_digest.py pairs with
// `openssl speed` (issue #17's goal: >= 95 % of it).
// Files: KCHECK_BENCH_DIGEST_FILES (':'-separated), else the CUDA toolkit's
// three largest libraries. Run twice first so they are in the page cache.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "checker/metadata/digest.h"

namespace {

namespace fs = std::filesystem;

std::vector<kcheck::FileEntry> bench_files() {
  std::vector<std::string> paths;
  if (const char* list = std::getenv("KCHECK_BENCH_DIGEST_FILES")) {
    std::stringstream stream(list);
    for (std::string path; std::getline(stream, path, ':');)
      if (!path.empty()) paths.push_back(path);
  } else {
    paths = {"/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcufft.so.12",
             "/usr/local/cuda/lib64/libcusparse.so.12"};
  }
  std::vector<kcheck::FileEntry> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!fs::is_regular_file(path, error)) continue;
    kcheck::FileEntry entry;
    entry.path = fs::canonical(path);
    entry.relative_path = entry.path.filename().string();
    entry.size = fs::file_size(entry.path);
    files.push_back(entry);
  }
  return files;
}

void BM_Sha256OneThread(benchmark::State& state) {
  const std::vector<kcheck::FileEntry> files = bench_files();
  if (files.empty()) {
    state.SkipWithError("no files to hash");
    return;
  }
  std::vector<const kcheck::FileEntry*> pointers;
  std::uint64_t bytes = 0;
  for (const kcheck::FileEntry& file : files) {
    pointers.push_back(&file);
    bytes += file.size;
  }
  for (auto _ : state) {
    kcheck::FileHashes hashes = kcheck::hash_files(pointers, kcheck::DigestAlgorithm::sha256, 1);
    benchmark::DoNotOptimize(hashes);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["files"] = static_cast<double>(files.size());
}
BENCHMARK(BM_Sha256OneThread)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
