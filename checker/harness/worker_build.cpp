#include "checker/harness/worker_build.h"

#include "checker/harness/contained_run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "checker/process/bounded_process.h"
#include "checker/process/executable_search.h"
#include "checker/harness/worker_sources.h"
#include "checker/metadata/digest.h"

namespace kcheck {
namespace fs = std::filesystem;

namespace {

// kcheck's own probe: it imports torch and reports what a worker needs.
constexpr const char* kProbeScript = R"py(
import json, os, sys, sysconfig
try:
    import torch
except Exception as error:
    print(json.dumps({"problem": "cannot import torch: %s" % error})); sys.exit(0)
torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
libdir, library = sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("LDLIBRARY") or ""
cuda = torch.version.cuda or ""
cuda_include = []
if cuda:
    # A toolkit's include/ holds every header; pip's CUDA 12 packages split them
    # (nvidia/cuda_runtime, nvidia/cublas, ...), CUDA 13's are in nvidia/cu13.
    site = os.path.dirname(torch_dir)
    nvidia = os.path.join(site, "nvidia")
    split = sorted(os.path.join(nvidia, name, "include") for name in (os.listdir(nvidia) if os.path.isdir(nvidia) else [])
                   if os.path.isdir(os.path.join(nvidia, name, "include")))
    candidates = [[os.path.join(os.environ[name], "include")] for name in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(name)]
    candidates += [[os.path.join(nvidia, "cu" + cuda.split(".")[0], "include")], split, ["/usr/local/cuda/include"]]
    for dirs in candidates:
        found = lambda header: any(os.path.isfile(os.path.join(d, header)) for d in dirs)
        if dirs and all(found(h) for h in ("cuda_runtime_api.h", "cublas_v2.h", "cusparse.h", "cusolverDn.h")):
            cuda_include = dirs
            break
print(json.dumps({"version": torch.__version__, "cxx11_abi": bool(torch.compiled_with_cxx11_abi()), "cuda": cuda,
                  "torch_dir": torch_dir, "libpython": os.path.join(libdir, library) if libdir and library else "",
                  "cuda_include": cuda_include, "executable": sys.executable or "",
                  "python_dirs": sorted({os.path.abspath(d) for d in [sys.prefix, sys.base_prefix, sys.exec_prefix,
                                         sys.base_exec_prefix, libdir] + sys.path if d and os.path.isdir(d)})}))
)py";

// Bumped when the way the worker is compiled changes (flags, libraries), so
// an older cached worker is not taken for a current one.
constexpr const char* kBuildRecipe = "worker-build-1";

// The worker's translation units among the carried sources.
std::vector<std::string> translation_units() {
  std::vector<std::string> units;
  for (const EmbeddedFile& file : worker_source_files())
    if (file.path.ends_with(".cpp")) units.emplace_back(file.path);
  return units;
}

// A short name for a cache directory from any text: its SHA-256, letters and digits only.
std::string short_hash(std::string_view text) {
  std::string hash;
  for (char c : hash_bytes(text, DigestAlgorithm::sha256))
    if (std::isalnum(static_cast<unsigned char>(c)) && hash.size() < 12) hash.push_back(c);
  return hash;
}

// Writes the carried sources under `directory`; false when one cannot be written.
bool write_sources(const fs::path& directory) {
  for (const EmbeddedFile& file : worker_source_files()) {
    const fs::path target = directory / fs::path(file.path);
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    std::ofstream out(target, std::ios::binary);
    out << file.content;
    if (!out) return false;
  }
  return true;
}

// Runs the compile commands `jobs` at a time; the first failure's output, or "".
std::string run_compiles(const std::vector<std::vector<std::string>>& commands, unsigned jobs,
                         const ProcessLimits& limits, const fs::path& directory) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  auto work = [&] {
    for (std::size_t index = next++; index < commands.size(); index = next++) {
      const ProcessEnd end = run_bounded(commands[index], limits, directory);
      if (end.exit_code == 0) continue;
      const std::lock_guard lock(failure_mutex);
      if (failure.empty())
        failure =
            (end.timed_out ? "timed out: " : "") + commands[index].back() + ": " +
            (end.output.empty() ? "exit status " + std::to_string(end.exit_code) : last_output_lines(end.output, 12));
    }
  };
  std::vector<std::thread> threads;
  const unsigned count = std::clamp<unsigned>(jobs, 1, static_cast<unsigned>(commands.size()));
  threads.reserve(count);
  for (unsigned i = 0; i < count; ++i) threads.emplace_back(work);
  for (std::thread& thread : threads) thread.join();
  return failure;
}

std::string cuda_includes(const TorchInstall& torch) {
  std::string joined;
  for (const fs::path& directory : torch.cuda_include) joined += directory.string() + ":";
  return joined;
}

std::string torch_release(const std::string& version) { return version.substr(0, version.find('+')); }

ProvisionedWorker cached_worker(const fs::path& directory, const std::string& key) {
  ProvisionedWorker worker;
  worker.key = key;
  if (::access((directory / "kcheck_worker").c_str(), X_OK) == 0) worker.path = directory / "kcheck_worker";
  return worker;
}

}  // namespace

bool TorchInstall::has_cuda_library() const {
  std::error_code error;
  return !torch_dir.empty() && fs::exists(torch_dir / "lib" / "libtorch_cuda.so", error);
}

TorchInstall parse_torch_probe(const fs::path& python, const std::string& output) {
  TorchInstall torch;
  torch.python = python;
  const std::size_t line_start = output.rfind("\n{");
  const nlohmann::json probe =
      nlohmann::json::parse(line_start == std::string::npos ? output : output.substr(line_start + 1), nullptr, false);
  if (!probe.is_object()) {
    torch.problem = "its Torch probe printed no answer: " + last_output_lines(output, 3);
    return torch;
  }
  auto text = [&probe](const char* key) {
    const auto found = probe.find(key);
    return found != probe.end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  torch.problem = text("problem");
  torch.version = text("version");
  torch.cuda = text("cuda");
  torch.torch_dir = text("torch_dir");
  torch.libpython = text("libpython");
  torch.executable = text("executable");
  if (const auto includes = probe.find("cuda_include"); includes != probe.end() && includes->is_array())
    for (const nlohmann::json& directory : *includes)
      if (directory.is_string() && !directory.get<std::string>().empty())
        torch.cuda_include.emplace_back(directory.get<std::string>());
  if (const auto directories = probe.find("python_dirs"); directories != probe.end() && directories->is_array())
    for (const nlohmann::json& directory : *directories)
      if (directory.is_string() && fs::path(directory.get<std::string>()).is_absolute())
        torch.python_dirs.emplace_back(directory.get<std::string>());
  const auto abi = probe.find("cxx11_abi");
  torch.cxx11_abi = abi == probe.end() || !abi->is_boolean() || abi->get<bool>();
  if (torch.problem.empty() && (torch.version.empty() || !torch.torch_dir.is_absolute()))
    torch.problem = "its Torch probe gave no Torch version or directory";
  return torch;
}

TorchInstall probe_torch(const fs::path& python, std::chrono::milliseconds timeout) {
  // In "/", not wherever kcheck was started (maybe the kernel repository): nothing there is found by accident.
  // Contained (the host read-only, no network, the environment's
  // allow-list): whatever the Python runs at start-up reaches nothing.
  const ProcessEnd end = run_contained_probe({python.string(), "-I", "-c", kProbeScript}, timeout);
  TorchInstall torch;
  if (!end.started || end.exit_code != 0) {
    torch.python = python;
    torch.problem = !end.started    ? "cannot start it"
                    : end.timed_out ? "importing torch did not finish in time"
                                    : "its Torch probe failed: " + last_output_lines(end.output, 3);
    return torch;
  }
  return parse_torch_probe(python, end.output);
}

WorkerBuildSettings worker_build_settings(const char* cache_home, const char* home, const char* cxx, const char* path) {
  WorkerBuildSettings settings;
  if (cache_home && *cache_home == '/')
    settings.cache_dir = fs::path(cache_home) / "kcheck" / "workers";
  else if (home && *home == '/')
    settings.cache_dir = fs::path(home) / ".cache" / "kcheck" / "workers";
  if (cxx && *cxx)
    settings.compiler = find_executable(cxx, path);
  else
    for (const char* name : {"c++", "g++", "clang++"})
      if (settings.compiler.empty()) settings.compiler = find_executable(name, path);
  if (!settings.compiler.empty()) {
    const ProcessEnd version =
        run_bounded({settings.compiler.string(), "--version"}, {std::chrono::seconds(30), 4096}, "/");
    settings.compiler_identity = settings.compiler.string() + " " + version.output.substr(0, version.output.find('\n'));
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && ::access((self.parent_path() / "kcheck_worker").c_str(), X_OK) == 0)
    settings.prebuilt_worker = self.parent_path() / "kcheck_worker";  // only beside kcheck, never a fixed path
  settings.prebuilt_torch_dir = KCHECK_WORKER_TORCH_DIR;
  settings.prebuilt_torch_version = KCHECK_WORKER_TORCH_VERSION;
  settings.jobs = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  return settings;
}

std::string worker_cache_key(const TorchInstall& torch, const WorkerBuildSettings& settings) {
  std::string identity = std::string(kBuildRecipe) + "\n" + torch.version + "\n" + torch.torch_dir.string() + "\n" +
                         torch.libpython.string() + "\n" + cuda_includes(torch) + "\n" + settings.compiler_identity +
                         "\n";
  for (const EmbeddedFile& file : worker_source_files()) {
    identity += file.path;
    identity += '\n';
    identity += file.content;
  }
  const std::string cuda =
      torch.cuda.empty()
          ? "cpu"
          : "cu" + torch.cuda.substr(0, torch.cuda.find('.')) +
                (torch.cuda.find('.') == std::string::npos ? "" : torch.cuda.substr(torch.cuda.find('.') + 1, 1));
  return "torch" + torch_release(torch.version) + "-" + (torch.cxx11_abi ? "cxx11" : "cxx98") + "-" + cuda + "-" +
         short_hash(identity);
}

WorkerBuildPlan worker_build_plan(const TorchInstall& torch, const WorkerBuildSettings& settings,
                                  const fs::path& build_dir) {
  const fs::path source = build_dir / "src";
  const bool cuda = torch.has_cuda_library();
  std::vector<std::string> flags = {settings.compiler.string(),
                                    "-std=c++20",
                                    "-O2",
                                    "-w",
                                    "-D_GLIBCXX_USE_CXX11_ABI=" + std::string(torch.cxx11_abi ? "1" : "0"),
                                    "-DKCHECK_LIBPYTHON=\"" + torch.libpython.string() + "\"",
                                    "-I" + source.string(),
                                    "-isystem",
                                    (source / "include").string(),
                                    "-isystem",
                                    (torch.torch_dir / "include").string(),
                                    "-isystem",
                                    (torch.torch_dir / "include/torch/csrc/api/include").string()};
  if (cuda && !torch.cuda_include.empty()) {
    flags.emplace_back("-DKCHECK_WORKER_CUDA");
    for (const fs::path& directory : torch.cuda_include) flags.insert(flags.end(), {"-isystem", directory.string()});
  }
  WorkerBuildPlan plan;
  std::vector<std::string> objects;
  for (const std::string& unit : translation_units()) {
    std::string object = unit;
    std::replace(object.begin(), object.end(), '/', '_');
    object = (build_dir / "obj" / (object + ".o")).string();
    std::vector<std::string> command = flags;
    command.insert(command.end(), {"-c", "-o", object, (source / unit).string()});
    plan.compile.push_back(std::move(command));
    objects.push_back(object);
  }
  const fs::path lib = torch.torch_dir / "lib";
  plan.link = {settings.compiler.string(), "-o", (build_dir / "kcheck_worker").string()};
  plan.link.insert(plan.link.end(), objects.begin(), objects.end());
  plan.link.insert(plan.link.end(), {"-L" + lib.string(), "-Wl,-rpath," + lib.string()});
  // libtorch_cuda registers the CUDA backend when loaded: linked although nothing names it.
  if (cuda) plan.link.insert(plan.link.end(), {"-Wl,--no-as-needed", "-ltorch_cuda", "-lc10_cuda", "-Wl,--as-needed"});
  plan.link.insert(plan.link.end(), {"-ltorch", "-ltorch_cpu", "-lc10", "-ldl", "-pthread"});
  return plan;
}

ProvisionedWorker provision_worker(const TorchInstall& torch, const WorkerBuildSettings& settings,
                                   const std::function<void(const std::string&)>& announce) {
  ProvisionedWorker worker;
  if (!torch.problem.empty()) {
    worker.problem = torch.python.string() + ": " + torch.problem;
    return worker;
  }
  std::error_code error;
  if (!settings.prebuilt_worker.empty() && !settings.prebuilt_torch_dir.empty() &&
      fs::equivalent(settings.prebuilt_torch_dir, torch.torch_dir, error) &&
      settings.prebuilt_torch_version == torch.version && ::access(settings.prebuilt_worker.c_str(), X_OK) == 0) {
    worker.path = settings.prebuilt_worker;
    worker.key = "built-with-kcheck";
    return worker;
  }
  worker.key = worker_cache_key(torch, settings);
  if (settings.cache_dir.empty()) {
    worker.problem = "no cache directory to build kcheck_worker in (neither $XDG_CACHE_HOME nor $HOME is set)";
    return worker;
  }
  const fs::path final_dir = settings.cache_dir / worker.key;
  if (ProvisionedWorker cached = cached_worker(final_dir, worker.key); !cached.path.empty()) return cached;
  if (settings.compiler.empty()) {
    worker.problem = "kcheck_worker for Torch " + torch.version +
                     " is not built and there is no C++ compiler to build it ($CXX, or c++, g++, clang++ on PATH)";
    return worker;
  }
  fs::create_directories(settings.cache_dir, error);
  std::string pattern = (settings.cache_dir / ".building-XXXXXX").string();
  if (error || !::mkdtemp(pattern.data())) {
    worker.problem = "cannot create a build directory in " + settings.cache_dir.string();
    return worker;
  }
  const fs::path build_dir = pattern;
  fs::create_directories(build_dir / "obj", error);
  if (announce)
    announce("building kcheck_worker for Torch " + torch.version + " (" + torch.python.string() + ") with " +
             settings.compiler.string() + " into " + final_dir.string() + "; once per Torch, a few minutes");
  const WorkerBuildPlan plan = worker_build_plan(torch, settings, build_dir);
  const ProcessLimits limits{settings.timeout, 16 * 1024};
  std::string failure = write_sources(build_dir / "src") ? "" : "cannot write the worker's sources";
  if (failure.empty()) failure = run_compiles(plan.compile, settings.jobs, limits, build_dir);
  if (failure.empty()) {
    const ProcessEnd linked = run_bounded(plan.link, limits, build_dir);
    if (linked.exit_code != 0)
      failure = "linking: " + (linked.output.empty() ? "exit status " + std::to_string(linked.exit_code)
                                                     : last_output_lines(linked.output, 12));
  }
  if (!failure.empty()) {
    fs::remove_all(build_dir, error);
    worker.problem = "building kcheck_worker for Torch " + torch.version + " with " + settings.compiler.string() +
                     " failed: " + failure;
    return worker;
  }
  fs::remove_all(build_dir / "src", error);
  fs::remove_all(build_dir / "obj", error);
  nlohmann::json record = {{"key", worker.key},
                           {"torch", torch.version},
                           {"torch_dir", torch.torch_dir},
                           {"python", torch.python},
                           {"compiler", settings.compiler_identity}};
  std::ofstream(build_dir / "worker.json") << record.dump(2) << "\n";
  // Atomic: a concurrent kcheck that finished first keeps its worker, and this one is dropped.
  fs::rename(build_dir, final_dir, error);
  if (error) fs::remove_all(build_dir, error);
  ProvisionedWorker built = cached_worker(final_dir, worker.key);
  built.built_now = true;
  if (built.path.empty()) built.problem = "the worker built for Torch " + torch.version + " is not in the cache";
  return built;
}

}  // namespace kcheck
