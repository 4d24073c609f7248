#include "checker/builder/toolchain.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "checker/builder/build_tool.h"
#include "checker/process/executable_search.h"
#include "checker/support/text_scan.h"
#include "checker/kinds/elf_facts.h"
#include "checker/elf/needed_closure.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

std::string read_small_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Torch's version as version.py writes it: __version__ = '2.9.0+cu128'.
struct TorchVersionLine {
  std::string release;  // "2.9.0"
  std::string local;    // "+cu128"
};

// The first `__version__ = '<digits>(.<digits>)*<anything but quotes>'`.
std::optional<TorchVersionLine> find_version_line(std::string_view version_py) {
  constexpr std::string_view kName = "__version__";
  for (std::size_t at = version_py.find(kName); at != std::string_view::npos; at = version_py.find(kName, at + 1)) {
    const std::string_view after_name = version_py.substr(at + kName.size());
    text::Scanner scan(after_name);
    scan.take_while(text::is_space);
    if (!scan.take('=')) continue;
    scan.take_while(text::is_space);
    if (!scan.take('\'') && !scan.take('"')) continue;
    const std::size_t release_begin = scan.position();
    if (scan.take_while(text::is_digit).empty()) continue;
    while (scan.rest().size() >= 2 && scan.rest()[0] == '.' && text::is_digit(scan.rest()[1])) {
      scan.take('.');
      scan.take_while(text::is_digit);
    }
    const std::string_view release = after_name.substr(release_begin, scan.position() - release_begin);
    const std::string_view local = scan.take_while([](char c) { return c != '\'' && c != '"'; });
    if (scan.done()) continue;
    return TorchVersionLine{std::string(release), std::string(local)};
  }
  return std::nullopt;
}

std::optional<TorchInstallation> read_torch(const fs::path& package_dir, std::string& problem) {
  const std::string version_py = read_small_file(package_dir / "version.py");
  const std::optional<TorchVersionLine> version_line = find_version_line(version_py);
  if (!version_line) {
    problem = "no __version__ in " + (package_dir / "version.py").string();
    return std::nullopt;
  }
  if (!fs::exists(package_dir / "include/torch/library.h") || !fs::exists(package_dir / "lib/libc10.so")) {
    problem = package_dir.string() + " has no C++ headers or libraries (include/torch/library.h, lib/libc10.so)";
    return std::nullopt;
  }
  TorchInstallation torch;
  torch.package_dir = package_dir;
  const std::optional<Version> version = Version::parse(version_line->release);
  if (!version) {
    problem = "__version__ in " + (package_dir / "version.py").string() + " is not a version: " + version_line->release;
    return std::nullopt;
  }
  torch.version = *version;
  torch.version_text = version_line->release + version_line->local;
  torch.hip_version = torch_hip_version(version_py);
  // The C++ ABI Torch was built with shows in its mangled std::string symbols.
  ElfFacts c10 = read_elf_facts(package_dir / "lib/libc10.so");
  torch.cxx11_abi = false;
  for (const ElfExportedSymbol& symbol : c10.exports)
    if (symbol.name.find("__cxx11") != std::string::npos) {
      torch.cxx11_abi = true;
      break;
    }
  return torch;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

fs::path python_include_dir(const fs::path& python, std::string& problem) {
  ProcessEnd result =
      run_build_tool({python.string(), "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"});
  fs::path include = first_line(result.output);
  if (result.exit_code != 0 || !fs::exists(include / "Python.h")) {
    problem = "cannot find Python.h through " + python.string() + ": " + first_line(result.output);
    return {};
  }
  return include;
}

// "compute_90" -> "9.0" for each compute_<digits> in nvcc --list-gpu-arch.
std::vector<std::string> capabilities_listed(std::string_view gpu_archs) {
  constexpr std::string_view kPrefix = "compute_";
  std::vector<std::string> capabilities;
  for (std::size_t at = gpu_archs.find(kPrefix); at != std::string_view::npos; at = gpu_archs.find(kPrefix, at + 1)) {
    text::Scanner scan(gpu_archs.substr(at + kPrefix.size()));
    const std::string_view digits = scan.take_while(text::is_digit);
    if (digits.size() < 2) continue;
    capabilities.push_back(std::string(digits.substr(0, digits.size() - 1)) + "." + digits.back());
  }
  return capabilities;
}

std::optional<CudaToolkit> find_cuda(const fs::path& hint, std::string& problem) {
  std::vector<fs::path> candidates;
  if (!hint.empty()) candidates.push_back(hint);
  if (const char* home = std::getenv("CUDA_HOME")) candidates.emplace_back(home);
  candidates.emplace_back("/usr/local/cuda");
  for (const fs::path& root : candidates) {
    if (!fs::exists(root / "bin/nvcc")) continue;
    ProcessEnd version = run_build_tool({(root / "bin/nvcc").string(), "--version"});
    const std::optional<std::string_view> release = text::major_minor_after(version.output, "release ");
    const std::optional<Version> release_version = release ? Version::parse(*release) : std::nullopt;
    if (version.exit_code != 0 || !release_version) continue;
    CudaToolkit cuda{root, *release_version, {}};
    ProcessEnd archs = run_build_tool({cuda.nvcc().string(), "--list-gpu-arch"});
    cuda.supported_capabilities = capabilities_listed(archs.output);
    return cuda;
  }
  problem =
      "no CUDA toolkit (nvcc) under " + (hint.empty() ? std::string("$CUDA_HOME or /usr/local/cuda") : hint.string());
  return std::nullopt;
}

// Where a program of that name is on $PATH.
std::optional<fs::path> on_path(const std::string& program) {
  fs::path found = find_executable(program, std::getenv("PATH"));
  if (found.empty()) return std::nullopt;
  return found;
}

// The HIP runtime next to the ROCm root of hipcc, else where the C compiler finds it.
std::optional<fs::path> hip_runtime_library(const fs::path& hipcc) {
  for (const char* lib : {"lib", "lib64"}) {
    fs::path candidate = hipcc.parent_path().parent_path() / lib / "libamdhip64.so";
    if (fs::exists(candidate)) return candidate;
  }
  ProcessEnd found = run_build_tool({"cc", "-print-file-name=libamdhip64.so"});
  fs::path path = first_line(found.output);
  if (found.exit_code == 0 && path.is_absolute() && fs::exists(path)) return path;
  return std::nullopt;
}

}  // namespace

std::optional<RocmToolkit> find_rocm(const fs::path& hint, std::string& problem) {
  std::vector<fs::path> candidates;
  if (!hint.empty()) candidates.push_back(fs::is_directory(hint) ? hint / "bin/hipcc" : hint);
  if (hint.empty()) {
    if (const char* root = std::getenv("ROCM_PATH")) candidates.push_back(fs::path(root) / "bin/hipcc");
    candidates.emplace_back("/opt/rocm/bin/hipcc");
    if (auto found = on_path("hipcc")) candidates.push_back(*found);
  }
  for (const fs::path& hipcc : candidates) {
    if (!fs::exists(hipcc)) continue;
    ProcessEnd version = run_build_tool({hipcc.string(), "--version"});
    const std::optional<std::string_view> hip_release = text::major_minor_after(version.output, "HIP version: ");
    const std::optional<Version> hip_version = hip_release ? Version::parse(*hip_release) : std::nullopt;
    if (version.exit_code != 0 || !hip_version) {
      problem = hipcc.string() + " --version names no HIP version: " + first_line(version.output);
      continue;
    }
    auto runtime = hip_runtime_library(hipcc);
    if (!runtime) {
      problem = "hipcc found (" + hipcc.string() + ") but not the HIP runtime libamdhip64.so it links against";
      return std::nullopt;
    }
    return RocmToolkit{hipcc, *hip_version, *runtime};
  }
  if (problem.empty())
    problem = "no HIP compiler (hipcc) " +
              (hint.empty() ? std::string("under $ROCM_PATH, /opt/rocm or on PATH") : "at " + hint.string());
  return std::nullopt;
}

bool hipcc_supports_arch(const RocmToolkit& rocm, const std::string& arch) {
  ProcessEnd probe =
      run_build_tool({rocm.hipcc.string(), "-x", "hip", "--offload-arch=" + arch, "-fsyntax-only", "/dev/null"});
  return probe.exit_code == 0;
}

std::optional<fs::path> find_torch_package(const fs::path& hint) {
  if (fs::exists(hint / "version.py") && fs::exists(hint / "include")) return hint;
  if (fs::exists(hint / "torch/version.py")) return hint / "torch";
  std::error_code error;
  for (fs::directory_iterator it(hint / "lib", error), end; !error && it != end; it.increment(error)) {
    fs::path candidate = it->path() / "site-packages/torch";
    if (it->path().filename().string().starts_with("python") && fs::exists(candidate / "version.py")) return candidate;
  }
  return std::nullopt;
}

fs::path default_torch_environment(const char* virtual_env, const fs::path& executable, const std::string& python) {
  if (virtual_env && *virtual_env) return virtual_env;
  std::error_code error;
  if (!executable.empty()) {
    fs::path checkout_venv = executable.parent_path().parent_path() / ".venv";
    if (fs::is_directory(checkout_venv, error)) return checkout_venv;
  }
  if (python.empty()) return {};
  // The user's own interpreter says where its Torch is (no kernel code runs here).
  // -I: not the current directory's torch.py, nor PYTHON* variables.
  const ProcessEnd probe = run_build_tool(
      {python, "-I", "-c", "import os, torch; print(os.path.dirname(torch.__file__))"}, std::chrono::seconds(60));
  if (probe.exit_code != 0) return {};
  std::string directory = probe.output;
  while (!directory.empty() && (directory.back() == '\n' || directory.back() == '\r')) directory.pop_back();
  if (directory.find('\n') != std::string::npos) directory = directory.substr(directory.rfind('\n') + 1);
  return fs::is_directory(directory, error) ? fs::path(directory) : fs::path();
}

std::vector<fs::path> library_directories(const Toolchain& toolchain) {
  std::vector<fs::path> directories;
  if (toolchain.torch) directories.push_back(toolchain.torch->lib_dir());
  if (toolchain.cuda) {
    directories.push_back(toolchain.cuda->root / "lib64");
    directories.push_back(toolchain.cuda->root /
                          (toolchain.cpu == "aarch64" ? "targets/sbsa-linux/lib" : "targets/x86_64-linux/lib"));
  }
  if (toolchain.rocm && !toolchain.rocm->runtime_library.empty())
    directories.push_back(toolchain.rocm->runtime_library.parent_path());
  for (fs::path& directory : system_library_directories()) directories.push_back(std::move(directory));
  return directories;
}

Toolchain detect_toolchain(const fs::path& torch_hint, const fs::path& default_venv, const fs::path& cuda_hint,
                           const fs::path& rocm_hint) {
  Toolchain toolchain;
  fs::path where = torch_hint.empty() ? default_venv : torch_hint;
  if (auto package = find_torch_package(where))
    toolchain.torch = read_torch(*package, toolchain.torch_problem);
  else if (where.empty())
    toolchain.torch_problem =
        "no Torch found: no active virtual environment ($VIRTUAL_ENV), no .venv beside this kcheck's checkout, and "
        "python3 on PATH imports no torch (activate the environment that has it, or pass --torch DIR)";
  else
    toolchain.torch_problem = "no torch package found in " + where.string() + " (pass --torch DIR)";
  toolchain.python = fs::exists(where / "bin/python") ? where / "bin/python" : fs::path("python3");
  toolchain.python_include_dir = python_include_dir(toolchain.python, toolchain.python_problem);
  toolchain.cuda = find_cuda(cuda_hint, toolchain.cuda_problem);
  toolchain.rocm = find_rocm(rocm_hint, toolchain.rocm_problem);
  struct utsname machine {};
  ::uname(&machine);
  toolchain.cpu = machine.machine;
  if (toolchain.cpu == "arm64") toolchain.cpu = "aarch64";
  return toolchain;
}

std::string torch_hip_version(std::string_view version_py) {
  std::size_t line_begin = 0;
  while (line_begin < version_py.size()) {
    const std::size_t line_end = std::min(version_py.find('\n', line_begin), version_py.size());
    const std::string_view line = version_py.substr(line_begin, line_end - line_begin);
    line_begin = line_end + 1;
    if (!line.starts_with("hip") || line.size() < 4 || (line[3] != ':' && line[3] != ' ' && line[3] != '=')) continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    text::Scanner scan(line.substr(equals + 1));
    scan.take_while(text::is_space);
    if (!scan.take('\'') && !scan.take('"')) return "";
    return std::string(scan.take_while([](char c) { return c != '\'' && c != '"'; }));
  }
  return "";
}

}  // namespace kcheck
