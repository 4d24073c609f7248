// kcheck_worker on first use (issue #27): the worker links libtorch, so it is
// built against the Torch of the Python the user names (--python), with the
// compiler the user has, from the sources kcheck carries (worker_sources.h),
// and cached per Torch version, C++ ABI and CUDA under the user's cache
// directory. kcheck itself never links Torch.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace kcheck {

// A Python's Torch as kcheck's own probe script reports it (the Python
// imports torch and nothing from any kernel repository).
struct TorchInstall {
  std::filesystem::path python;
  std::string problem;              // why no worker can be built for it; "" = usable
  std::string version;              // torch.__version__, "2.11.0+cu130"
  bool cxx11_abi = true;            // torch.compiled_with_cxx11_abi()
  std::string cuda;                 // torch.version.cuda, "" for a CPU build
  std::filesystem::path torch_dir;  // the torch package (include/, lib/)
  std::filesystem::path libpython;  // the worker loads it for kernels that need Python symbols
  // sys.executable: the interpreter itself where `python` is a wrapper (a
  // pyenv shim, a script), which a sandbox that hides the host cannot follow.
  std::filesystem::path executable;
  std::vector<std::filesystem::path> cuda_include;  // CUDA headers for the worker's device queries; none found: empty
  // The Python's prefixes and the directories of its import path: what a
  // sandbox that hides the rest of the host must show for it to run.
  std::vector<std::filesystem::path> python_dirs;
  bool has_cuda_library() const;  // lib/libtorch_cuda.so is there
};

// Runs the probe in `python` (isolated mode, a bounded time); `problem` says
// why when Python cannot start or has no usable Torch.
TorchInstall probe_torch(const std::filesystem::path& python, std::chrono::milliseconds timeout);
// The probe's JSON output into a TorchInstall (for tests): a malformed
// output is a `problem`, never an exception.
TorchInstall parse_torch_probe(const std::filesystem::path& python, const std::string& output);

// Where and how workers are built.
struct WorkerBuildSettings {
  std::filesystem::path cache_dir;           // <cache>/kcheck/workers; empty = no cache (building is refused)
  std::filesystem::path compiler;            // a C++20 compiler; empty = none found
  std::string compiler_identity;             // its --version line, part of the cache key
  std::filesystem::path prebuilt_worker;     // the worker built with kcheck from source, if any
  std::filesystem::path prebuilt_torch_dir;  // the Torch it was built against
  std::string prebuilt_torch_version;        // and its version (a Torch upgraded in place is another Torch)
  unsigned jobs = 2;                         // compiler processes at once
  std::chrono::milliseconds timeout{1800000};
};

// The settings from the environment: the cache under $XDG_CACHE_HOME (else
// $HOME/.cache), the compiler $CXX (else c++, g++ or clang++ on $PATH), and
// the worker this kcheck was built with. `cache_home`, `home`, `cxx` and
// `path` are those variables' values (null when unset).
WorkerBuildSettings worker_build_settings(const char* cache_home, const char* home, const char* cxx, const char* path);

// The worker for `torch`, and what it is.
struct ProvisionedWorker {
  std::filesystem::path path;  // empty when there is none (then `problem` says why)
  std::string key;             // the cache key ("torch2.11.0-cxx11-cu130-<hash>"), or "built-with-kcheck"
  bool built_now = false;      // compiled by this call
  std::string problem;
};

// The cache key of a worker for `torch` built from this kcheck's worker
// sources with `settings`' compiler: Torch version, C++ ABI and CUDA in
// words, then a hash of everything else that changes the binary.
std::string worker_cache_key(const TorchInstall& torch, const WorkerBuildSettings& settings);

// The worker for `torch`: the one built with kcheck when it was built
// against the same Torch directory, else the cached one for its key, else one
// compiled now into the cache (announced first through `announce`, since it
// takes minutes). A failed build leaves nothing in the cache and says why,
// with the compiler's last lines.
ProvisionedWorker provision_worker(const TorchInstall& torch, const WorkerBuildSettings& settings,
                                   const std::function<void(const std::string&)>& announce = {});

// The compiler commands that build the worker in `build_dir` (sources
// written under build_dir/src): one per translation unit, then the link.
struct WorkerBuildPlan {
  std::vector<std::vector<std::string>> compile;
  std::vector<std::string> link;
};
WorkerBuildPlan worker_build_plan(const TorchInstall& torch, const WorkerBuildSettings& settings,
                                  const std::filesystem::path& build_dir);

}  // namespace kcheck
