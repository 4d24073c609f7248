#include "checker/builder/cpp_dependencies.h"

#include <cctype>
#include <cstdlib>
#include <system_error>
#include <unistd.h>

#include "checker/builder/kernel_builder.h"

namespace kcheck {

namespace fs = std::filesystem;

const std::vector<CppDependencyInfo>& known_cpp_dependencies() {
  // Names and versions: the upstream builder's dependency list (kernels-data
  // config/deps.rs; kernel-builder's CMake dependency templates). PyPI
  // versions: the releases of `nvidia-cutlass` on PyPI (3.5.1.0, 3.6.0.0,
  // 3.8.0.0 and 4.2.0.0 among them, none of 2.10, 3.9, 4.0, 4.4 or 4.5),
  // looked up 2026-11-23. Their wheels carry CUTLASS's include/ and
  // tools/util/include/ trees under cutlass_library/source/.
  static const std::vector<CppDependencyInfo> dependencies = {
      {"torch", "Torch", "", "", ""},
      {"cutlass_2_10", "CUTLASS", "2.10.0", "nvidia-cutlass", ""},
      {"cutlass_3_5", "CUTLASS", "3.5.1", "nvidia-cutlass", "3.5.1.0"},
      {"cutlass_3_6", "CUTLASS", "3.6.0", "nvidia-cutlass", "3.6.0.0"},
      {"cutlass_3_8", "CUTLASS", "3.8.0", "nvidia-cutlass", "3.8.0.0"},
      {"cutlass_3_9", "CUTLASS", "3.9.2", "nvidia-cutlass", ""},
      {"cutlass_4_0", "CUTLASS", "4.0.0", "nvidia-cutlass", ""},
      {"cutlass_4_4", "CUTLASS", "4.4.2", "nvidia-cutlass", ""},
      {"cutlass_4_5", "CUTLASS", "4.5.2", "nvidia-cutlass", ""},
      {"sycl_tla", "sycl-tla", "", "", ""},
      {"metal-cpp", "metal-cpp", "", "", ""},
  };
  return dependencies;
}

const CppDependencyInfo* find_cpp_dependency(const std::string& name) {
  for (const CppDependencyInfo& dependency : known_cpp_dependencies())
    if (dependency.name == name) return &dependency;
  return nullptr;
}

fs::path default_deps_dir() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache) return fs::path(cache) / "kcheck/deps";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache/kcheck/deps";
  return fs::temp_directory_path() / "kcheck-deps";
}

namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::vector<fs::path> include_dirs_of(const fs::path& root) {
  std::vector<fs::path> dirs = {root / "include"};
  if (fs::is_directory(root / "tools/util/include")) dirs.push_back(root / "tools/util/include");
  return dirs;
}

// Unpacks the headers of an nvidia-cutlass wheel into `target` (include/ and
// tools/util/include/), refusing member names that would leave it.
const char* kUnpackCutlassWheel = R"(import sys, zipfile, pathlib
wheel, target = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
prefix = "cutlass_library/source/"
wanted = ("include/", "tools/util/include/")
count = 0
with zipfile.ZipFile(wheel) as archive:
    for member in archive.infolist():
        if not member.filename.startswith(prefix) or member.is_dir():
            continue
        relative = member.filename[len(prefix):]
        if not relative.startswith(wanted):
            continue
        destination = (target / relative).resolve()
        if target not in destination.parents:
            sys.exit("unsafe member name in wheel: " + member.filename)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(archive.read(member))
        count += 1
if count == 0:
    sys.exit("no CUTLASS headers under cutlass_library/source/include in " + wheel)
)";

}  // namespace

ResolvedCppDependency resolve_cpp_dependency(const std::string& name, const fs::path& deps_dir, const fs::path& python,
                                             const CommandRunner& run) {
  const CppDependencyInfo* info = find_cpp_dependency(name);
  if (!info) {
    std::string names;
    for (const CppDependencyInfo& known : known_cpp_dependencies()) names += (names.empty() ? "" : ", ") + known.name;
    throw BuildError("unknown C++ dependency '" + name + "' (known: " + names + ")");
  }
  ResolvedCppDependency resolved{name, {}, false};
  if (info->name == "torch") return resolved;  // the Torch the build uses
  const fs::path root = deps_dir / (lowercase(info->library) + "-" + info->version);
  std::error_code present;
  if (fs::is_directory(root / "include", present)) {
    resolved.include_dirs = include_dirs_of(root);
    return resolved;
  }
  const std::string wanted = info->library + " " + info->version;
  if (info->pypi_version.empty())
    throw BuildError("depends = \"" + name + "\" needs " + wanted +
                     (info->pypi_package.empty() ? std::string(", which kcheck cannot fetch")
                                                 : ", which PyPI's " + info->pypi_package + " does not serve") +
                     ": put its headers at " + (root / "include").string() + " (e.g. the include/ directory of its v" +
                     info->version + " source release) and build again");
  const fs::path download = deps_dir / (".download-" + name + "-" + std::to_string(::getpid()));
  const fs::path staging = deps_dir / (".staging-" + name + "-" + std::to_string(::getpid()));
  std::error_code error;
  fs::create_directories(download, error);
  if (error)
    throw BuildError("depends = \"" + name + "\": cannot create " + download.string() + ": " + error.message());
  CommandResult fetched =
      run({python.string(), "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           "--only-binary=:all:", "-d", download.string(), info->pypi_package + "==" + info->pypi_version});
  std::error_code ignored;
  if (fetched.exit_code != 0) {
    fs::remove_all(download, ignored);
    throw BuildError("depends = \"" + name + "\": cannot download " + info->pypi_package + "==" + info->pypi_version +
                     " from PyPI with " + python.string() + " -m pip: " + fetched.output + "\n(or put " + wanted +
                     "'s headers at " + (root / "include").string() + ")");
  }
  fs::path wheel;
  for (fs::directory_iterator it(download, error), end; !error && it != end; it.increment(error))
    if (it->path().extension() == ".whl") wheel = it->path();
  CommandResult unpacked = wheel.empty()
                               ? CommandResult{1, "pip wrote no wheel"}
                               : run({python.string(), "-c", kUnpackCutlassWheel, wheel.string(), staging.string()});
  fs::remove_all(download, ignored);
  if (unpacked.exit_code != 0) {
    fs::remove_all(staging, ignored);
    throw BuildError("depends = \"" + name + "\": cannot unpack " + info->pypi_package + "==" + info->pypi_version +
                     ": " + unpacked.output);
  }
  // Concurrent builds may race here: the first rename wins, the others use it.
  std::error_code renamed;
  fs::rename(staging, root, renamed);
  fs::remove_all(staging, ignored);
  if (!fs::is_directory(root / "include", ignored))
    throw BuildError("depends = \"" + name + "\": cannot move the unpacked headers to " + root.string() +
                     (renamed ? ": " + renamed.message() : std::string(" (it exists without include/)")));
  resolved.include_dirs = include_dirs_of(root);
  resolved.fetched = true;
  return resolved;
}

}  // namespace kcheck
