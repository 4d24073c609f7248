#include "checker/builder/toolchain.h"

#include <sys/utsname.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "checker/builder/build_tool.h"
#include "checker/elf/elf_facts.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

std::string read_small_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<TorchInstallation> read_torch(const fs::path& package_dir, std::string& problem) {
  std::smatch match;
  std::string version_py = read_small_file(package_dir / "version.py");
  static const std::regex version_line(R"(__version__\s*=\s*['"]([0-9]+(\.[0-9]+)*)([^'"]*)['"])");
  if (!std::regex_search(version_py, match, version_line)) {
    problem = "no __version__ in " + (package_dir / "version.py").string();
    return std::nullopt;
  }
  if (!fs::exists(package_dir / "include/torch/library.h") || !fs::exists(package_dir / "lib/libc10.so")) {
    problem = package_dir.string() + " has no C++ headers or libraries (include/torch/library.h, lib/libc10.so)";
    return std::nullopt;
  }
  TorchInstallation torch;
  torch.package_dir = package_dir;
  torch.version = *Version::parse(match[1].str());
  torch.version_text = match[1].str() + match[3].str();
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

std::optional<CudaToolkit> find_cuda(const fs::path& hint, std::string& problem) {
  std::vector<fs::path> candidates;
  if (!hint.empty()) candidates.push_back(hint);
  if (const char* home = std::getenv("CUDA_HOME")) candidates.emplace_back(home);
  candidates.emplace_back("/usr/local/cuda");
  for (const fs::path& root : candidates) {
    if (!fs::exists(root / "bin/nvcc")) continue;
    ProcessEnd version = run_build_tool({(root / "bin/nvcc").string(), "--version"});
    std::smatch match;
    static const std::regex release(R"(release ([0-9]+\.[0-9]+))");
    if (version.exit_code != 0 || !std::regex_search(version.output, match, release)) continue;
    CudaToolkit cuda{root, *Version::parse(match[1].str()), {}};
    ProcessEnd archs = run_build_tool({cuda.nvcc().string(), "--list-gpu-arch"});
    static const std::regex compute(R"(compute_([0-9]+)([0-9]))");
    for (std::sregex_iterator it(archs.output.begin(), archs.output.end(), compute), end; it != end; ++it)
      cuda.supported_capabilities.push_back((*it)[1].str() + "." + (*it)[2].str());
    return cuda;
  }
  problem = "no CUDA toolkit (nvcc) under " + (hint.empty() ? std::string("$CUDA_HOME or /usr/local/cuda") : hint.string());
  return std::nullopt;
}

}  // namespace

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

Toolchain detect_toolchain(const fs::path& torch_hint, const fs::path& default_venv, const fs::path& cuda_hint) {
  Toolchain toolchain;
  fs::path where = torch_hint.empty() ? default_venv : torch_hint;
  if (auto package = find_torch_package(where)) toolchain.torch = read_torch(*package, toolchain.torch_problem);
  else toolchain.torch_problem = "no torch package found in " + where.string() + " (pass --torch DIR)";
  fs::path python = fs::exists(where / "bin/python") ? where / "bin/python" : fs::path("python3");
  toolchain.python_include_dir = python_include_dir(python, toolchain.python_problem);
  toolchain.cuda = find_cuda(cuda_hint, toolchain.cuda_problem);
  struct utsname machine {};
  ::uname(&machine);
  toolchain.cpu = machine.machine;
  if (toolchain.cpu == "arm64") toolchain.cpu = "aarch64";
  return toolchain;
}

}  // namespace kcheck
