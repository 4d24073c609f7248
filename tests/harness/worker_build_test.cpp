// kcheck_worker on first use (issue #27 item 5): the probe of a Python's
// Torch, the cache key, where the cache and the compiler come from, the
// choices provision_worker makes before compiling anything, and that the
// worker's sources kcheck carries are complete. The real build from these
// sources is exercised by the wheel test (scripts/test-wheel.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "checker/harness/harness.h"
#include "checker/harness/worker_build.h"
#include "checker/harness/worker_sources.h"
#include "checker/kinds/variant_name.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProbe =
    R"({"version": "2.11.0+cu130", "cxx11_abi": true, "cuda": "13.0", "torch_dir": "/venv/site-packages/torch",)"
    R"( "libpython": "/usr/lib/libpython3.11.so", "cuda_include": ["/venv/site-packages/nvidia/cu13/include"]})";

fs::path scratch(const std::string& name) {
  fs::path path = fs::temp_directory_path() / ("kcheck-worker-build-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(path);
  fs::create_directories(path);
  return path;
}

TEST(TorchProbe, ReadsWhatTheWorkerIsBuiltAgainst) {
  const TorchInstall torch = parse_torch_probe("/venv/bin/python", std::string("a warning\n") + kProbe);
  EXPECT_EQ(torch.problem, "");
  EXPECT_EQ(torch.version, "2.11.0+cu130");
  EXPECT_TRUE(torch.cxx11_abi);
  EXPECT_EQ(torch.cuda, "13.0");
  EXPECT_EQ(torch.torch_dir, "/venv/site-packages/torch");
  EXPECT_EQ(torch.libpython, "/usr/lib/libpython3.11.so");
  EXPECT_EQ(torch.cuda_include, std::vector<fs::path>{"/venv/site-packages/nvidia/cu13/include"});
}

TEST(TorchProbe, NoTorchOrAMalformedAnswerIsAProblemNotAnException) {
  EXPECT_EQ(parse_torch_probe("py", R"({"problem": "cannot import torch: No module named 'torch'"})").problem,
            "cannot import torch: No module named 'torch'");
  EXPECT_NE(parse_torch_probe("py", "Traceback (most recent call last):").problem.find("printed no answer"),
            std::string::npos);
  EXPECT_EQ(parse_torch_probe("py", R"({"version": 3, "torch_dir": ["x"]})").problem,
            "its Torch probe gave no Torch version or directory");
  EXPECT_EQ(parse_torch_probe("py", R"({"version": "2.11.0", "torch_dir": "relative/torch"})").problem,
            "its Torch probe gave no Torch version or directory");
}

TEST(TorchProbe, APythonThatCannotStartIsAProblem) {
  EXPECT_EQ(probe_torch("/no/such/python", std::chrono::seconds(10)).problem, "cannot start it");
}

TEST(WorkerCacheKey, NamesTheTorchAbiAndCudaAndChangesWithWhatChangesTheBinary) {
  const TorchInstall torch = parse_torch_probe("py", kProbe);
  WorkerBuildSettings settings;
  settings.compiler_identity = "/usr/bin/c++ c++ (Debian 12.2.0-14) 12.2.0";
  const std::string key = worker_cache_key(torch, settings);
  EXPECT_TRUE(std::regex_match(key, std::regex("torch2\\.11\\.0-cxx11-cu130-[A-Za-z0-9]{12}"))) << key;
  EXPECT_EQ(worker_cache_key(torch, settings), key) << "the same inputs, the same key";

  WorkerBuildSettings other_compiler = settings;
  other_compiler.compiler_identity = "/usr/bin/clang++ Debian clang version 14.0.6";
  EXPECT_NE(worker_cache_key(torch, other_compiler), key);
  TorchInstall other_torch = torch;
  other_torch.torch_dir = "/other/venv/torch";
  EXPECT_NE(worker_cache_key(other_torch, settings), key);
  TorchInstall cpu_old_abi = torch;
  cpu_old_abi.cuda.clear();
  cpu_old_abi.cxx11_abi = false;
  EXPECT_EQ(worker_cache_key(cpu_old_abi, settings).rfind("torch2.11.0-cxx98-cpu-", 0), 0u);
}

TEST(WorkerBuildSettings, TheUsersCacheDirectoryAndCompiler) {
  const fs::path bin = scratch("bin");
  std::ofstream(bin / "g++") << "#!/bin/sh\necho 'g++ (Test) 1.0'\n";
  fs::permissions(bin / "g++", fs::perms::owner_all);
  const std::string path = "relative:" + bin.string();

  const WorkerBuildSettings xdg = worker_build_settings("/cache", "/home/u", nullptr, path.c_str());
  EXPECT_EQ(xdg.cache_dir, "/cache/kcheck/workers");
  EXPECT_EQ(xdg.compiler, bin / "g++");
  EXPECT_EQ(xdg.compiler_identity, (bin / "g++").string() + " g++ (Test) 1.0");
  EXPECT_EQ(worker_build_settings("relative", "/home/u", nullptr, path.c_str()).cache_dir,
            "/home/u/.cache/kcheck/workers")
      << "a relative XDG_CACHE_HOME is ignored, as the XDG specification says";
  EXPECT_EQ(worker_build_settings(nullptr, nullptr, nullptr, path.c_str()).cache_dir, "");
  EXPECT_EQ(worker_build_settings("/cache", nullptr, "/no/such/c++", path.c_str()).compiler, "")
      << "$CXX names the compiler; one that is not there is none";
  EXPECT_EQ(worker_build_settings("/cache", nullptr, nullptr, "relative:").compiler, "")
      << "a relative PATH entry (the current directory) is never searched";
  fs::remove_all(bin);
}

TEST(ProvisionWorker, WhatHappensBeforeAnythingIsCompiled) {
  const fs::path cache = scratch("cache");
  TorchInstall torch = parse_torch_probe("/venv/bin/python", kProbe);
  WorkerBuildSettings settings;
  settings.cache_dir = cache;

  TorchInstall broken = torch;
  broken.problem = "cannot import torch: no module";
  EXPECT_EQ(provision_worker(broken, settings).problem, "/venv/bin/python: cannot import torch: no module");

  const ProvisionedWorker no_compiler = provision_worker(torch, settings);
  EXPECT_EQ(no_compiler.path, "");
  EXPECT_NE(no_compiler.problem.find("there is no C++ compiler to build it"), std::string::npos) << no_compiler.problem;
  EXPECT_FALSE(fs::exists(cache / no_compiler.key)) << "nothing is left in the cache";

  // A worker already in the cache under its key is used, not rebuilt.
  fs::create_directories(cache / no_compiler.key);
  std::ofstream(cache / no_compiler.key / "kcheck_worker") << "#!/bin/sh\n";
  fs::permissions(cache / no_compiler.key / "kcheck_worker", fs::perms::owner_all);
  const ProvisionedWorker cached = provision_worker(torch, settings);
  EXPECT_EQ(cached.path, cache / no_compiler.key / "kcheck_worker");
  EXPECT_FALSE(cached.built_now);
  EXPECT_EQ(cached.problem, "");

  // The worker built with kcheck serves the very Torch it was built against.
  const fs::path torch_dir = scratch("torch");
  torch.torch_dir = torch_dir;
  settings.prebuilt_worker = cache / no_compiler.key / "kcheck_worker";
  settings.prebuilt_torch_dir = torch_dir;
  settings.prebuilt_torch_version = "2.11.0+cu130";
  const ProvisionedWorker prebuilt = provision_worker(torch, settings);
  EXPECT_EQ(prebuilt.key, "built-with-kcheck");
  EXPECT_EQ(prebuilt.path, settings.prebuilt_worker);
  settings.prebuilt_torch_version = "2.10.0+cu130";  // the same directory, upgraded since: another Torch
  EXPECT_NE(provision_worker(torch, settings).key, "built-with-kcheck");
  fs::remove_all(cache);
  fs::remove_all(torch_dir);
}

TEST(ProvisionWorker, AFailedBuildSaysWhyAndLeavesNothingInTheCache) {
  const fs::path cache = scratch("failed");
  const TorchInstall torch = parse_torch_probe("/venv/bin/python", kProbe);
  WorkerBuildSettings settings;
  settings.cache_dir = cache;
  settings.compiler = "/bin/false";
  std::string announced;
  const ProvisionedWorker worker =
      provision_worker(torch, settings, [&announced](const std::string& message) { announced = message; });
  EXPECT_EQ(worker.path, "");
  EXPECT_EQ(worker.problem.rfind("building kcheck_worker for Torch 2.11.0+cu130 with /bin/false failed: ", 0), 0u)
      << worker.problem;
  EXPECT_NE(announced.find("building kcheck_worker for Torch 2.11.0+cu130"), std::string::npos) << announced;
  EXPECT_TRUE(fs::is_empty(cache)) << "no partial build is left behind";
  fs::remove_all(cache);
}

TEST(WorkerBuildPlan, CompilesEveryCarriedUnitAgainstTheTorchAndLinksItsLibraries) {
  TorchInstall torch = parse_torch_probe("py", kProbe);
  WorkerBuildSettings settings;
  settings.compiler = "/usr/bin/c++";
  const WorkerBuildPlan plan = worker_build_plan(torch, settings, "/b");
  std::size_t units = 0;
  for (const EmbeddedFile& file : worker_source_files()) units += file.path.ends_with(".cpp") ? 1 : 0;
  EXPECT_EQ(plan.compile.size(), units);
  ASSERT_FALSE(plan.compile.empty());
  const std::vector<std::string>& first = plan.compile.front();
  auto has = [](const std::vector<std::string>& command, const std::string& argument) {
    return std::find(command.begin(), command.end(), argument) != command.end();
  };
  EXPECT_TRUE(has(first, "-D_GLIBCXX_USE_CXX11_ABI=1"));
  EXPECT_TRUE(has(first, "-DKCHECK_LIBPYTHON=\"/usr/lib/libpython3.11.so\""));
  EXPECT_TRUE(has(first, "/venv/site-packages/torch/include"));
  EXPECT_TRUE(has(plan.link, "-Wl,-rpath,/venv/site-packages/torch/lib")) << "an absolute RUNPATH, nothing else";
  for (const std::string& argument : plan.link)
    EXPECT_EQ(argument.find("-rpath,$ORIGIN"), std::string::npos) << argument;
  torch.cxx11_abi = false;
  EXPECT_TRUE(has(worker_build_plan(torch, settings, "/b").compile.front(), "-D_GLIBCXX_USE_CXX11_ABI=0"));
}

// Every quoted #include of a carried file names another carried file, so
// the sources build with nothing but Torch and a compiler.
TEST(WorkerSources, AreCompleteAndCarryTheJsonLibraryAndItsLicence) {
  std::set<std::string> paths;
  for (const EmbeddedFile& file : worker_source_files()) paths.emplace(file.path);
  EXPECT_TRUE(paths.contains("cli/kcheck_worker.cpp"));
  EXPECT_TRUE(paths.contains("include/nlohmann/json.hpp"));
  EXPECT_TRUE(paths.contains("licenses/nlohmann-json"));
  const std::regex quoted_include("#include \"([^\"]+)\"");
  for (const EmbeddedFile& file : worker_source_files()) {
    if (file.path.starts_with("include/") || file.path.starts_with("licenses/")) continue;
    const std::string text(file.content);
    for (auto match = std::sregex_iterator(text.begin(), text.end(), quoted_include); match != std::sregex_iterator();
         ++match)
      EXPECT_TRUE(paths.contains((*match)[1].str())) << file.path << " includes " << (*match)[1] << ", not carried";
    EXPECT_EQ(text.find("benchmark/benchmark.h"), std::string::npos) << file.path << ": needs Google Benchmark";
  }
}

TEST(RuntimeFor, EachVariantRunsAgainstTheFirstTorchThatFitsOrSaysWhyNone) {
  VariantFacts variant;
  variant.path = "/build/torch212-cxx11-cpu-x86_64-linux";
  variant.name = parse_variant_name("torch212-cxx11-cpu-x86_64-linux");
  ASSERT_TRUE(variant.name);
  auto torch = [](const char* version) {
    LocalTorch local;
    local.available = true;
    local.version_text = version;
    local.version = *Version::parse(version);
    local.backends = {"cpu"};
    return local;
  };
  std::string why;
  EXPECT_EQ(runtime_for(variant, {torch("2.11.0"), torch("2.12.1")}, {"/a/python", "/b/python"}, why), 1u);
  EXPECT_EQ(why, "");
  EXPECT_EQ(runtime_for(variant, {torch("2.11.0"), torch("2.13.0")}, {"/a/python", "/b/python"}, why), std::nullopt);
  EXPECT_EQ(why,
            "/a/python: needs Torch 2.12 (the Torch here is 2.11.0); /b/python: needs Torch 2.12 (the Torch here is "
            "2.13.0)");
  LocalTorch none;
  none.problem = "no C++ compiler";
  EXPECT_EQ(runtime_for(variant, {none}, {"/a/python"}, why), std::nullopt);
  EXPECT_EQ(why, "no C++ compiler") << "one Torch: its reason alone";
}

}  // namespace
}  // namespace kcheck
