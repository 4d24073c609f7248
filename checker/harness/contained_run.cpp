#include "checker/harness/contained_run.h"

#include <cstdlib>  // mkdtemp (POSIX)

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>

#include "checker/kinds/elf_facts.h"

namespace kcheck {
namespace fs = std::filesystem;

std::vector<fs::path> worker_library_directories(const fs::path& worker) {
  std::vector<fs::path> directories;
  std::error_code error;
  if (worker.empty() || !fs::is_regular_file(worker, error)) return directories;
  const ElfFacts elf = read_elf_facts(worker);
  for (std::string directory : elf.runpath) {
    if (directory.starts_with("$ORIGIN")) directory = worker.parent_path().string() + directory.substr(7);
    const fs::path path = fs::path(directory).lexically_normal();
    if (!path.is_absolute()) continue;
    directories.push_back(path);
    if (path.filename() == "lib" && path.parent_path().filename() == "torch")
      directories.push_back(path.parent_path().parent_path());
  }
  return directories;
}

ProcessEnd run_contained_probe(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                               std::optional<std::vector<fs::path>> visible) {
  std::string pattern = (fs::temp_directory_path() / "kcheck-probe-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) {
    ProcessEnd end;
    end.output = "cannot create a temporary directory";
    return end;
  }
  const PrivateScratch scratch(pattern);
  Containment containment;
  containment.scratch = scratch.path();
  containment.visible = std::move(visible);
  return run_bounded(argv, {timeout, 64 * 1024, containment});
}

std::vector<fs::path> contained_visible_paths(const VariantFacts& variant, const HarnessOptions& options,
                                              const fs::path& private_scratch) {
  std::error_code error;
  std::vector<fs::path> visible = options.visible_paths;
  visible.push_back(fs::absolute(variant.path, error));
  if (!options.repository.empty()) visible.push_back(fs::absolute(options.repository, error));
  if (options.tests && options.tests->is_absolute()) visible.push_back(*options.tests);
  visible.push_back(fs::absolute(private_scratch, error).parent_path());  // kcheck's inputs: plans, helpers
  if (!options.python.empty()) {
    // A venv's root (its site-packages) and the installation its python links to.
    visible.push_back(fs::absolute(options.python, error).parent_path().parent_path());
    const fs::path resolved = fs::canonical(options.python, error);
    if (!error) visible.push_back(resolved.parent_path().parent_path());
  }
  const std::vector<fs::path> libraries = worker_library_directories(options.worker);
  visible.insert(visible.end(), libraries.begin(), libraries.end());
  return visible;
}

PrivateScratch::PrivateScratch(fs::path path) : path_(std::move(path)) {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  fs::create_directories(path_);
}

PrivateScratch::~PrivateScratch() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

ProcessLimits contained_limits(const VariantFacts& variant, const HarnessOptions& options,
                               std::chrono::milliseconds timeout, const fs::path& private_scratch) {
  Containment containment;
  containment.scratch = private_scratch;
  // RLIMIT_CPU counts every thread of a process: with all cores busy for the
  // whole timeout a legitimate run stays below it; a runaway one is ended.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  containment.cpu_time = std::chrono::ceil<std::chrono::seconds>(timeout) * cores + std::chrono::seconds(1);
  containment.file_size = options.max_file_size;
  containment.pass_environment = options.pass_environment;
  containment.network_namespace = !options.allow_network;
  containment.require_namespaces = options.require_sandbox;
  containment.visible = contained_visible_paths(variant, options, private_scratch);
  containment.work_bytes = 2 * options.max_file_size;
  const bool cpu_variant = !variant.name || variant.name->backend == "cpu";
  if (cpu_variant) containment.address_space = options.cpu_address_space;
  return {timeout, options.max_output, containment};
}

}  // namespace kcheck
