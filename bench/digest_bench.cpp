// SHA-256 of whole files as the digest check and the scan cache compute it
// (2 MiB mapped windows + OpenSSL, checker/metadata/digest.cpp), on one
// thread: the per-core hashing rate, which bench/paired_digest.py pairs with
// `openssl speed` (issue #17's goal: >= 95 % of it).
// Files: KCHECK_BENCH_DIGEST_FILES (':'-separated), else the CUDA toolkit's
// three largest libraries. Run twice first so they are in the page cache.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

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

// Where the gap to `openssl speed` lies (issue #32), the same bytes in two
// halves: the SHA-256 alone, as openssl speed measures it (kcheck's hash_bytes
// over one 1 MiB buffer that stays in the CPU's cache, repeated); and the
// page-cache read alone (the same 2 MiB mapped, populated windows the digest
// uses, each word read once and summed, no hashing).
void BM_Sha256ResidentBuffer(benchmark::State& state) {
  const std::string buffer(std::size_t{1} << 20, 'k');
  for (auto _ : state) {
    std::string hash = kcheck::hash_bytes(buffer, kcheck::DigestAlgorithm::sha256);
    benchmark::DoNotOptimize(hash);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(buffer.size()) * state.iterations());
}
BENCHMARK(BM_Sha256ResidentBuffer)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_PageCacheReadOnly(benchmark::State& state) {
  const std::vector<kcheck::FileEntry> files = bench_files();
  if (files.empty()) {
    state.SkipWithError("no files to read");
    return;
  }
  constexpr std::size_t kWindow = std::size_t{2} << 20;  // checker/metadata/digest.cpp's kHashWindowBytes
  std::uint64_t bytes = 0;
  for (const kcheck::FileEntry& file : files) bytes += file.size;
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (const kcheck::FileEntry& file : files) {
      const int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      for (std::uint64_t offset = 0; offset < file.size; offset += kWindow) {
        const std::size_t length = std::min<std::uint64_t>(kWindow, file.size - offset);
        void* window = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(offset));
        if (window == MAP_FAILED) break;
        const auto* words = static_cast<const std::uint64_t*>(window);
        for (std::size_t i = 0; i < length / 8; ++i) sum += words[i];
        ::munmap(window, length);
      }
      ::close(fd);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}
BENCHMARK(BM_PageCacheReadOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
