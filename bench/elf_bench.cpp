// All KE rules on large real libraries, side by side with
// `readelf -d -V --dyn-syms` on the same file (run through popen, timed as
// manual time without the shell's start-up removed: the comparison of whole
// processes, with peak RSS, is bench/compare_elf.sh).
// KCHECK_BENCH_ELF_FILES=path:path overrides the files.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "bench/native_module_audit.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> bench_files() {
  std::vector<fs::path> files;
  if (const char* list = std::getenv("KCHECK_BENCH_ELF_FILES")) {
    std::stringstream paths(list);
    for (std::string path; std::getline(paths, path, ':');) files.emplace_back(path);
    return files;
  }
  for (const char* path : {"/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcufft.so.12",
                           "/usr/local/cuda/lib64/libcublas.so.13"}) {
    if (fs::exists(path)) files.emplace_back(path);
  }
  return files;
}

void BM_KcheckKeRules(benchmark::State& state, const fs::path& file) {
  const kcheck::Policy policy = kcheck::load_policy("hub");
  const kcheck::RuleRegistry rules = kcheck::bench::native_module_rules();
  std::size_t findings = 0;
  for (auto _ : state) {
    const kcheck::Findings result = kcheck::bench::audit_native_module(file, policy, rules);
    findings = result.size();
    benchmark::DoNotOptimize(findings);
  }
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(file)) / 1e6;
}

void BM_Readelf(benchmark::State& state, const fs::path& file) {
  const std::string command = "readelf -d -V --dyn-syms '" + file.string() + "' > /dev/null";
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (std::system(command.c_str()) != 0) state.SkipWithError("readelf failed");
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

const bool registered = [] {
  for (const fs::path& file : bench_files()) {
    const std::string name = file.filename().string();
    benchmark::RegisterBenchmark(("BM_KcheckKeRules/" + name).c_str(), BM_KcheckKeRules, file)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Readelf/" + name).c_str(), BM_Readelf, file)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
