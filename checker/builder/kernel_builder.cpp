#include "checker/builder/kernel_builder.h"

#include <algorithm>
#include <map>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "checker/audit/audit.h"
#include "checker/builder/build_prechecks.h"
#include "checker/builder/generated_sources.h"
#include "checker/builder/gpu_archs.h"
#include "checker/config/config_values.h"
#include "checker/builder/build_tool.h"
#include "checker/builder/cpp_dependencies.h"
#include "checker/builder/unique_id.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/tree_walker.h"
#include "checker/metadata/digest.h"
#include "checker/kinds/python_facts.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw BuildError("cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tail(const std::string& text, std::size_t lines = 40) {
  std::size_t position = text.size();
  for (std::size_t count = 0; count <= lines && position != std::string::npos && position > 0; ++count)
    position = text.rfind('\n', position - 1);
  return position == std::string::npos ? text : text.substr(position + 1);
}

std::string cmake_quote(const std::string& text) { return "\"" + text + "\""; }

std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string cmake_list(const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& item : items) list += "\n  " + cmake_quote(item);
  return list;
}

// nvcc -gencode options for one capability: SASS, plus PTX where "+PTX" asks for it.
std::vector<std::string> gencode_options(const std::string& capability) {
  std::string arch = build_config::without_ptx(capability);
  arch.erase(std::remove(arch.begin(), arch.end(), '.'), arch.end());
  std::vector<std::string> options = {"-gencode=arch=compute_" + arch + ",code=sm_" + arch};
  if (capability.ends_with("+PTX")) options.push_back("-gencode=arch=compute_" + arch + ",code=compute_" + arch);
  return options;
}

// The toolkit's default capability set (build-variants.md §5.1), "12.1+PTX" style.
std::vector<std::string> toolkit_default_capabilities(const CudaToolkit& cuda, const Policy& policy) {
  std::vector<std::string> defaults =
      build_config::toolkit_default_capabilities(cuda.version, policy.cuda_toolkit_defaults);
  return defaults.empty() ? policy.cuda_supported_capabilities : defaults;
}

// The capabilities one CUDA component is compiled for: its own list
// intersected with the targets (--cuda-capabilities, else the toolkit's
// default set), or the targets themselves when it lists none. Only those nvcc
// compiles are kept.
std::vector<std::string> component_cuda_capabilities(const BuildRequest& request,
                                                     const KernelComponentSource& component, const CudaToolkit& cuda,
                                                     const Policy& policy) {
  const std::vector<std::string> defaults =
      request.cuda_capabilities.empty() ? toolkit_default_capabilities(cuda, policy) : request.cuda_capabilities;
  std::vector<std::string> targets;
  targets.reserve(defaults.size());
  for (const std::string& capability : defaults) targets.push_back(build_config::without_ptx(capability));
  std::vector<std::string> chosen = component.cuda_capabilities.empty() ? defaults
                                                                        : build_config::intersect_cuda_capabilities(
                                                                              component.cuda_capabilities, targets);
  if (chosen.empty())
    throw BuildError("kernel." + component.name + ": its cuda-capabilities (" + joined(component.cuda_capabilities) +
                     ") select none of the targets (" + joined(targets) + ")");
  std::vector<std::string> compiled;
  for (const std::string& capability : chosen) {
    std::string numeric = build_config::without_ptx(capability);
    if (!numeric.empty() && std::isalpha(static_cast<unsigned char>(numeric.back()))) numeric.pop_back();
    if (std::find(cuda.supported_capabilities.begin(), cuda.supported_capabilities.end(), numeric) !=
        cuda.supported_capabilities.end())
      compiled.push_back(capability);
  }
  if (compiled.empty())
    throw BuildError("kernel." + component.name + ": none of its CUDA capabilities (" + joined(chosen) +
                     ") is supported by nvcc " + cuda.version.str());
  return compiled;
}

struct VariantPlan {
  std::string backend;
  std::string variant;
  std::string id;
  std::optional<Version> stable_abi;           // [torch] stable-abi for this backend
  std::vector<std::string> sources;            // absolute; compiled by CMake's compilers (or headers)
  std::vector<std::string> includes;           // absolute
  std::vector<std::string> cuda_capabilities;  // union over the components (metadata backend.archs)
  std::vector<std::pair<std::string, std::vector<std::string>>> source_options;  // per-source flags
  std::vector<std::string> prefix_maps;  // -ffile-prefix-map=OLD=NEW: no build path reaches the module
  // rocm: the device sources (.cu, .hip) hipcc compiles, with their flags, and the archs.
  std::vector<std::pair<std::string, std::vector<std::string>>> hip_sources;
  RocmArchSelection rocm_archs;
  fs::path project_dir;
  std::string kernel_include;  // the kernel's root as the compilers see it
  // cuda: links the build directory holds (name -> target), through which the
  // compilers see the kernel and its dependencies (see stable_build_path).
  std::vector<std::pair<std::string, fs::path>> build_links;
};

// Where nvcc's -lineinfo/-G line tables (in .nv_fatbin) would record the
// build machine's paths, which -ffile-prefix-map does not reach: a CUDA
// build names the kernel's files as /proc/self/cwd/kernel-src/... and its
// dependencies' as /proc/self/cwd/deps/..., links in the build directory
// where every compiler runs, so the recorded paths are those (KE012).
constexpr std::string_view kStableKernelRoot = "/proc/self/cwd/kernel-src";
constexpr std::string_view kStableDepsRoot = "/proc/self/cwd/deps";

std::string stable_build_path(const fs::path& path, const fs::path& kernel_root, const fs::path& deps_dir) {
  for (const auto& [root, stable] : {std::pair{kernel_root, kStableKernelRoot}, std::pair{deps_dir, kStableDepsRoot}}) {
    const fs::path relative =
        fs::absolute(path).lexically_normal().lexically_relative(fs::absolute(root).lexically_normal());
    if (!relative.empty() && *relative.begin() != "..")
      return relative == "." ? std::string(stable) : std::string(stable) + "/" + relative.generic_string();
  }
  return path.string();
}

// TORCH_TARGET_VERSION for a stable-ABI version, as Torch's
// torch/csrc/stable/version.h defines it: (major << 56) | (minor << 48).
std::string torch_target_version(const Version& abi) {
  const unsigned long long value =
      (static_cast<unsigned long long>(abi.major()) << 56) | (static_cast<unsigned long long>(abi.minor()) << 48);
  char text[32];
  std::snprintf(text, sizeof text, "0x%016llx", value);
  return text;
}

const char* backend_macro(const std::string& backend) {
  if (backend == "cuda") return "CUDA_KERNEL";
  if (backend == "rocm") return "ROCM_KERNEL";
  return "CPU_KERNEL";
}

// hipcc compiles each device source into an object the module links; CMake
// 3.25 has no HIP language without ROCm's CMake packages, so custom commands.
std::string hip_compile_commands(const VariantPlan& plan, const std::vector<std::string>& includes,
                                 const std::string& definitions, const Toolchain& toolchain,
                                 std::vector<std::string>& objects) {
  std::string text;
  for (std::size_t i = 0; i < plan.hip_sources.size(); ++i) {
    const auto& [source, options] = plan.hip_sources[i];
    const std::string object =
        "${CMAKE_CURRENT_BINARY_DIR}/hip_" + std::to_string(i) + "_" + fs::path(source).stem().string() + ".o";
    objects.push_back(object);
    text += "add_custom_command(OUTPUT " + cmake_quote(object) + "\n  COMMAND " +
            cmake_quote(toolchain.rocm->hipcc.string()) +
            " -x hip -std=c++17 -O3 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden";
    for (const std::string& arch : plan.rocm_archs.archs) text += " --offload-arch=" + arch;
    text += " " + definitions;
    for (const std::string& include : includes) text += " " + cmake_quote("-I" + include);
    for (const std::string& option : options) text += " " + cmake_quote(option);
    text += " -c " + cmake_quote(source) + " -o " + cmake_quote(object) + "\n  DEPENDS" + cmake_list(plan.sources);
    for (const auto& hip_source : plan.hip_sources) text += "\n  " + cmake_quote(hip_source.first);
    text += "\n  COMMENT " + cmake_quote("hipcc " + fs::path(source).filename().string()) + "\n  VERBATIM)\n";
  }
  return text;
}

std::string cmake_project(const VariantPlan& plan, const Toolchain& toolchain) {
  const bool cuda = plan.backend == "cuda";
  const TorchInstallation& torch = *toolchain.torch;
  std::vector<std::string> includes = {(plan.project_dir / "generated").string(), plan.kernel_include};
  includes.insert(includes.end(), plan.includes.begin(), plan.includes.end());
  includes.insert(includes.end(), {torch.include_dir().string(), torch.api_include_dir().string(),
                                   toolchain.python_include_dir.string()});
  std::vector<std::string> libraries = {"torch", "torch_cpu", "c10"};
  std::vector<std::string> link_dirs = {torch.lib_dir().string()};
  if (cuda) {
    includes.push_back((toolchain.cuda->root / "include").string());
    libraries.insert(libraries.end(), {"torch_cuda", "c10_cuda", "cudart"});
    link_dirs.push_back((toolchain.cuda->root / "lib64").string());
  }
  // rocm: the glue links the Torch found (a ROCm Torch; with --rocm-audit-fixtures any) and the HIP runtime.
  if (plan.backend == "rocm") libraries.push_back(toolchain.rocm->runtime_library.string());
  std::string definitions = "-DTORCH_EXTENSION_NAME=" + plan.id + " -D" + backend_macro(plan.backend) +
                            " -DPy_LIMITED_API=0x03090000 -D_GLIBCXX_USE_CXX11_ABI=" + (torch.cxx11_abi ? "1" : "0");
  const std::string target_version = plan.stable_abi ? torch_target_version(*plan.stable_abi) : "";
  if (!target_version.empty()) definitions += " -DTORCH_TARGET_VERSION=" + target_version;
  for (const std::string& map : plan.prefix_maps) definitions += " " + cmake_quote(map);
  std::vector<std::string> hip_objects;
  const std::string hip_commands =
      plan.backend == "rocm" ? hip_compile_commands(plan, includes, definitions, toolchain, hip_objects) : "";

  std::string text = "# Generated by `kcheck build` for variant " + plan.variant + ".\n";
  text += "cmake_minimum_required(VERSION 3.22)\n";
  text += std::string("project(kcheck_variant LANGUAGES C CXX") + (cuda ? " CUDA" : "") + ")\n";
  text += "set(CMAKE_CXX_STANDARD 17)\nset(CMAKE_CXX_STANDARD_REQUIRED ON)\n";
  text += "set(CMAKE_POSITION_INDEPENDENT_CODE ON)\n";
  text += "set(CMAKE_C_VISIBILITY_PRESET hidden)\nset(CMAKE_CXX_VISIBILITY_PRESET hidden)\n";
  text += "set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)\nset(CMAKE_SKIP_RPATH ON)\n";
  if (cuda) {
    text += "set(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_VISIBILITY_PRESET hidden)\n";
    text += "set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)\n";
  }
  text += hip_commands;
  text += "add_library(variant MODULE" + cmake_list(plan.sources) + cmake_list(hip_objects) + "\n  " +
          cmake_quote((plan.project_dir / "kcheck_symbol_pins.c").string()) + ")\n";
  text += "set_target_properties(variant PROPERTIES OUTPUT_NAME " + cmake_quote(plan.id) +
          " PREFIX \"\" SUFFIX \".abi3.so\" LINKER_LANGUAGE CXX";
  if (cuda) text += " CUDA_ARCHITECTURES OFF";  // -gencode per source, per component
  text += ")\n";
  text += "target_include_directories(variant PRIVATE" + cmake_list(includes) + ")\n";
  text += "target_compile_definitions(variant PRIVATE TORCH_EXTENSION_NAME=" + plan.id + " " +
          backend_macro(plan.backend) +
          " Py_LIMITED_API=0x03090000 _GLIBCXX_USE_CXX11_ABI=" + (torch.cxx11_abi ? "1" : "0") +
          (target_version.empty() ? "" : " TORCH_TARGET_VERSION=" + target_version) + ")\n";
  text +=
      "target_compile_options(variant PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O3> "
      "$<$<COMPILE_LANGUAGE:CUDA>:-O3 --expt-relaxed-constexpr --expt-extended-lambda -Xcompiler=-fvisibility=hidden>";
  for (const std::string& map : plan.prefix_maps) {
    text += " " + cmake_quote("$<$<COMPILE_LANGUAGE:C,CXX>:" + map + ">");
    if (cuda) text += " " + cmake_quote("$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=" + map + ">");
  }
  text += ")\n";
  for (const auto& [source, options] : plan.source_options) {
    if (options.empty()) continue;
    text += "set_source_files_properties(" + cmake_quote(source) + " PROPERTIES COMPILE_OPTIONS " +
            cmake_quote(joined(options, ";")) + ")\n";
  }
  text += "target_link_directories(variant PRIVATE" + cmake_list(link_dirs) + ")\n";
  text += "target_link_libraries(variant PRIVATE" + cmake_list(libraries) + ")\n";
  text +=
      "target_link_options(variant PRIVATE -static-libstdc++ \"LINKER:--exclude-libs,ALL\" \"LINKER:--as-needed\" "
      "\"LINKER:-z,relro\" \"LINKER:-z,now\" \"LINKER:-z,noexecstack\" \"LINKER:--version-script=" +
      (plan.project_dir / "exports.map").string() + "\")\n";
  return text;
}

bool is_compiled_source(const std::string& path) {
  for (const char* extension : {".cpp", ".cc", ".cxx", ".c", ".cu"})
    if (path.ends_with(extension)) return true;
  return false;
}

// Device code: nvcc compiles it for cuda, hipcc for rocm (hipify done in the sources).
bool is_device_source(const std::string& path) { return path.ends_with(".cu") || path.ends_with(".hip"); }

// C++ dependency name -> the include directories it adds (resolved before anything compiles).
using ResolvedDependencies = std::map<std::string, std::vector<fs::path>>;

VariantPlan plan_variant(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                         const std::string& backend, const std::string& unique, const fs::path& deps_dir,
                         const ResolvedDependencies& dependencies) {
  const KernelSource& kernel = request.kernel;
  VariantPlan plan;
  plan.backend = backend;
  if (auto stable_abi = kernel.stable_abi.find(backend); stable_abi != kernel.stable_abi.end())
    plan.stable_abi = stable_abi->second;
  plan.variant = variant_name_for(backend, toolchain, VariantBuildKind::compiled, plan.stable_abi);
  plan.id = "_" + kernel.module_name() + "_" + backend + "_" + unique;
  plan.project_dir = fs::absolute(request.scratch_dir / plan.variant);
  // The paths the compilers are given: stable ones for CUDA (stable_build_path).
  const bool stable_paths = backend == "cuda";
  const auto compiler_path = [&](const fs::path& path) {
    return stable_paths ? stable_build_path(path, kernel.root, deps_dir) : path.string();
  };
  plan.kernel_include = compiler_path(kernel.root);
  if (stable_paths) plan.build_links = {{"kernel-src", kernel.root}, {"deps", deps_dir}};
  // cxx-flags apply to C++ sources, cuda-flags / hip-flags to device sources.
  auto add_sources = [&](const std::vector<std::string>& sources, const std::vector<std::string>& cxx_options,
                         const std::vector<std::string>& device_options) {
    for (const std::string& source : sources) {
      std::string absolute = compiler_path((kernel.root / source).lexically_normal());
      if (backend == "rocm" && is_device_source(source)) {
        plan.hip_sources.emplace_back(absolute, device_options);
        continue;
      }
      plan.sources.push_back(absolute);
      if (is_compiled_source(source))
        plan.source_options.emplace_back(absolute, is_device_source(source) ? device_options : cxx_options);
    }
  };
  add_sources(kernel.binding_sources, kernel.binding_cxx_flags, {});
  for (const std::string& include : kernel.binding_includes)
    plan.includes.push_back(compiler_path(kernel.root / include));
  std::vector<std::string> listed_rocm_archs;
  for (const KernelComponentSource& component : kernel.components) {
    if (component.backend != backend) continue;
    // A component's cuda-minver leaves it out of builds with an older toolkit (build-toml.md §4.8).
    if (backend == "cuda" && component.cuda_minver &&
        Version({toolchain.cuda->version.major(), toolchain.cuda->version.minor()}) < *component.cuda_minver)
      continue;
    std::vector<std::string> device_options = backend == "rocm" ? component.hip_flags : component.cuda_flags;
    if (backend == "cuda") {
      std::vector<std::string> capabilities = component_cuda_capabilities(request, component, *toolchain.cuda, policy);
      for (const std::string& capability : capabilities) {
        for (const std::string& option : gencode_options(capability)) device_options.push_back(option);
        if (std::find(plan.cuda_capabilities.begin(), plan.cuda_capabilities.end(), capability) ==
            plan.cuda_capabilities.end())
          plan.cuda_capabilities.push_back(capability);
      }
    }
    add_sources(component.sources, component.cxx_flags, device_options);
    for (const std::string& include : component.includes) plan.includes.push_back(compiler_path(kernel.root / include));
    listed_rocm_archs.insert(listed_rocm_archs.end(), component.rocm_archs.begin(), component.rocm_archs.end());
    for (const std::string& dependency : component.depends)
      if (auto resolved = dependencies.find(dependency); resolved != dependencies.end())
        for (const fs::path& include : resolved->second)
          if (std::find(plan.includes.begin(), plan.includes.end(), compiler_path(include)) == plan.includes.end())
            plan.includes.push_back(compiler_path(include));
  }
  // A .cu file among the binding sources gets the default capabilities.
  if (backend == "cuda") {
    KernelComponentSource binding{.name = "torch-binding"};
    std::vector<std::string> defaults = component_cuda_capabilities(request, binding, *toolchain.cuda, policy);
    for (auto& [source, options] : plan.source_options) {
      if (!is_device_source(source) ||
          std::any_of(options.begin(), options.end(), [](const std::string& o) { return o.starts_with("-gencode="); }))
        continue;
      for (const std::string& capability : defaults) {
        for (const std::string& option : gencode_options(capability)) options.push_back(option);
        if (std::find(plan.cuda_capabilities.begin(), plan.cuda_capabilities.end(), capability) ==
            plan.cuda_capabilities.end())
          plan.cuda_capabilities.push_back(capability);
      }
    }
  }
  if (backend == "rocm") {
    if (plan.hip_sources.empty()) throw BuildError("backend rocm has no device source (.cu, .hip) in build.toml");
    plan.rocm_archs =
        select_rocm_archs(request.rocm_archs, listed_rocm_archs, policy.rocm_supported_archs,
                          [&](const std::string& arch) { return hipcc_supports_arch(*toolchain.rocm, arch); });
  }
  // Build paths leave no trace in the module (__FILE__ in the kernel's and Torch's sources): KE012.
  plan.prefix_maps = {"-ffile-prefix-map=" + kernel.root.string() + "=.",
                      "-ffile-prefix-map=" + plan.project_dir.string() + "=kcheck-build",
                      "-ffile-prefix-map=" + toolchain.torch->package_dir.string() + "=torch",
                      "-ffile-prefix-map=" + deps_dir.string() + "=deps"};
  if (toolchain.cuda) plan.prefix_maps.push_back("-ffile-prefix-map=" + toolchain.cuda->root.string() + "=cuda");
  if (stable_paths)
    plan.prefix_maps.insert(plan.prefix_maps.end(), {"-ffile-prefix-map=" + std::string(kStableKernelRoot) + "=.",
                                                     "-ffile-prefix-map=" + std::string(kStableDepsRoot) + "=deps"});
  return plan;
}

// The first failing step of a ninja/make log, with every line of its
// diagnostics: from the first "FAILED:" to the next step or the end.
std::string first_failure(const std::string& log) {
  const std::size_t start = log.find("FAILED: ");
  if (start == std::string::npos) return tail(log);
  const std::string_view text(log);
  std::size_t end = log.size();
  for (std::size_t line = log.find('\n', start); line != std::string::npos; line = log.find('\n', line + 1)) {
    const std::string_view rest = text.substr(line + 1);
    if (rest.starts_with("[") || rest.starts_with("FAILED: ") || rest.starts_with("ninja: build stopped")) {
      end = line;
      break;
    }
  }
  return log.substr(start, end - start);
}

// Configures and builds the generated project; "" when it built. The whole
// output goes to `log`; a failure returns the first failing command with its
// full diagnostics and the path of the log.
std::string configure_and_build(const VariantPlan& plan, const Toolchain& toolchain, unsigned jobs,
                                std::chrono::seconds timeout, const fs::path& log) {
  const fs::path build_dir = plan.project_dir / "cmake-build";
  std::vector<std::string> configure = {
      "cmake", "-S", plan.project_dir.string(), "-B", build_dir.string(), "-DCMAKE_BUILD_TYPE=Release"};
  if (run_build_tool({"ninja", "--version"}).exit_code == 0) configure.insert(configure.end(), {"-G", "Ninja"});
  if (plan.backend == "cuda") configure.push_back("-DCMAKE_CUDA_COMPILER=" + toolchain.cuda->nvcc().string());
  // Every tool's output is appended to the log; the runner keeps only a tail in memory.
  auto logged = [&log](std::vector<std::string> argv) {
    argv.insert(argv.begin(), {"sh", "-c", "exec \"$@\" >>\"$0\" 2>&1", log.string()});
    return argv;
  };
  // Every compiler runs in the build directory (ninja's), so CMake does too:
  // the stable paths resolve through its links from both.
  fs::create_directories(build_dir);
  for (const auto& [name, target] : plan.build_links) {
    std::error_code ignored;
    fs::remove(build_dir / name, ignored);
    fs::create_directory_symlink(target, build_dir / name);
  }
  configure.insert(configure.begin(), {"sh", "-c", "cd \"$0\" && exec \"$@\"", build_dir.string()});
  if (!fs::exists(build_dir / "CMakeCache.txt")) {
    ProcessEnd configured = run_build_tool(logged(configure), timeout);
    if (configured.exit_code != 0)
      return "CMake configuration failed:\n" + tail(read_file(log)) + "\nfull log: " + log.string();
  }
  ProcessEnd built =
      run_build_tool(logged({"cmake", "--build", build_dir.string(), "-j", std::to_string(jobs)}), timeout);
  if (built.timed_out)
    return "compilation did not finish within " + std::to_string(timeout.count()) +
           " s (--build-timeout); full log: " + log.string();
  if (built.exit_code != 0)
    return "compilation failed:\n" + first_failure(read_file(log)) + "\nfull log: " + log.string();
  return {};
}

fs::path locate_system_library(const std::string& library) {
  ProcessEnd found = run_build_tool({"cc", "-print-file-name=" + library});
  std::string path = found.output.substr(0, found.output.find('\n'));
  return path.empty() ? fs::path(library) : fs::path(path);
}

// Links, then pins imports above the ceiling and links again (see symbol_pinning.h).
std::string link_within_ceilings(VariantBuild& result, const VariantPlan& plan, const Toolchain& toolchain,
                                 const Policy& policy, unsigned jobs, std::chrono::seconds timeout,
                                 const fs::path& log) {
  const fs::path module = plan.project_dir / "cmake-build" / (plan.id + ".abi3.so");
  result.pinning = plan_symbol_pinning(read_elf_facts(module), policy.native, toolchain.cpu, locate_system_library);
  if (!result.pinning.unresolved.empty()) {
    std::string why = "imports above the policy's symbol-version ceilings that cannot be pinned:";
    for (const std::string& problem : result.pinning.unresolved) why += "\n  " + problem;
    return why;
  }
  if (result.pinning.empty()) return {};
  write_file(plan.project_dir / "kcheck_symbol_pins.c", render_pinning_source(result.pinning, toolchain.cpu));
  return configure_and_build(plan, toolchain, jobs, timeout, log);
}

bool ships_as_python(const fs::path& file, const std::vector<std::string>& extensions) {
  std::string extension = file.extension().string();
  if (extension.empty() || extension == ".pyi" || extension == ".pyc") return false;
  return std::find(extensions.begin(), extensions.end(), extension.substr(1)) != extensions.end();
}

// Copies torch-ext/<module>/ into the variant: *.py and the pyext data
// extensions for a compiled build, every file but bytecode for a Python-only
// one (build-variants.md §3.1).
void copy_python_package(const KernelSource& kernel, const fs::path& variant_dir, VariantBuildKind kind) {
  const fs::path package = kernel.root / "torch-ext" / kernel.module_name();
  if (!fs::exists(package / "__init__.py"))
    throw BuildError("no Python package at " + package.string() + " (torch-ext/<module>/__init__.py)");
  for (fs::recursive_directory_iterator it(package), end; it != end; ++it) {
    if (it->path().filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() == ".pyc") continue;
    if (kind == VariantBuildKind::compiled && !ships_as_python(it->path(), kernel.python_extensions)) continue;
    fs::path target = variant_dir / it->path().lexically_relative(package);
    fs::create_directories(target.parent_path());
    fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing);
  }
}

nlohmann::json metadata_for(const KernelSource& kernel, const VariantBuild& variant, const UniqueMaterial& unique) {
  std::vector<std::string> depends = kernel.python_depends;
  if (auto backend = kernel.backend_python_depends.find(variant.backend);
      backend != kernel.backend_python_depends.end())
    depends.insert(depends.end(), backend->second.begin(), backend->second.end());
  nlohmann::json backend = {{"type", variant.backend}};
  if (!variant.gpu_archs.empty()) {
    std::vector<std::string> archs = variant.gpu_archs;
    // Compiled: the union, sorted as strings like the upstream writer; Python-only: as build.toml lists them.
    if (variant.kind == VariantBuildKind::compiled) std::sort(archs.begin(), archs.end());
    backend["archs"] = archs;
  }
  nlohmann::json metadata = {{"id", variant.id},          {"name", kernel.name},
                             {"version", kernel.version}, {"license", kernel.license},
                             {"python-depends", depends}, {"kernel-depends", nlohmann::json::array()},
                             {"backend", backend}};
  nlohmann::json provenance = {{"kernel-builder", {{"version", std::string("kcheck ") + KCHECK_VERSION}}}};
  if (unique.commit.size() == 40 || unique.commit.size() == 64)
    provenance["kernel"] = {{"commit", unique.commit}, {"dirty", unique.dirty}};
  metadata["provenance"] = provenance;
  return metadata;
}

std::vector<std::string> top_level_public_names(const fs::path& init_py) {
  PythonFileFacts facts = analyse_python_source(read_file(init_py), "__init__.py");
  return facts.all_names.value_or(std::vector<std::string>{});
}

// Writes build/<variant>/: the Python package, _ops.py, the compatibility
// package, the native module (`native_module`, compiled builds) and
// metadata.json with its digest.
void write_variant_directory(const BuildRequest& request, VariantBuild& result, const UniqueMaterial& unique,
                             const fs::path& native_module, unsigned jobs) {
  const KernelSource& kernel = request.kernel;
  fs::remove_all(result.directory);
  fs::create_directories(result.directory);
  copy_python_package(kernel, result.directory, result.kind);
  write_file(result.directory / "_ops.py", result.kind == VariantBuildKind::compiled
                                               ? ops_module(result.id)
                                               : python_only_ops_module(kernel.module_name(), unique.unique));
  // The legacy compatibility package, unless the kernel's own package already
  // has that name: a `<module>/` over the kernel's `<module>.py` would shadow
  // it (KP008; kernels-community einops), one over its own `<module>/` would
  // overwrite its files.
  std::error_code error;
  const fs::path compatibility = result.directory / kernel.module_name();
  if (!fs::exists(fs::symlink_status(compatibility, error)) &&
      !fs::exists(fs::symlink_status(result.directory / (kernel.module_name() + ".py"), error)))
    write_file(compatibility / "__init__.py",
               compatibility_package(top_level_public_names(result.directory / "__init__.py")));
  if (!native_module.empty()) fs::copy_file(native_module, result.directory / native_module.filename());
  nlohmann::json metadata = metadata_for(kernel, result, unique);
  VariantFacts written;
  written.path = result.directory;
  written.files = walk_variant(result.directory);
  ComputedDigest digest = compute_variant_digest(written, DigestAlgorithm::sha256, jobs);
  if (!digest.errors.empty())
    throw BuildError("cannot hash " + digest.errors.begin()->first + ": " + digest.errors.begin()->second);
  metadata["digest"] = digest.digest;
  write_file(result.directory / "metadata.json", metadata.dump(2) + "\n");
}

// What the upstream builder refuses (build-toml.md B8, B9), refused before compiling anything.
void check_before_building(const KernelSource& kernel, const std::vector<PlannedBackend>& backends,
                           const Toolchain& toolchain) {
  for (const PlannedBackend& backend : backends)
    if (backend.kind == VariantBuildKind::compiled)
      if (std::string problem = stable_abi_problem(kernel, backend.backend, *toolchain.torch); !problem.empty())
        throw BuildError("cannot build " + backend.backend + ": " + problem);
  const fs::path package = kernel.root / "torch-ext" / kernel.module_name();
  std::vector<UnprefixedOpRegistration> unprefixed = unprefixed_op_registrations(package);
  if (unprefixed.empty()) return;
  std::string why = "op registrations in " + package.string() +
                    " must take add_op_namespace_prefix(...) as their first argument (from ._ops):";
  for (const UnprefixedOpRegistration& registration : unprefixed)
    why += "\n  " + registration.file + ":" + std::to_string(registration.line) + " " + registration.decorator;
  throw BuildError(why);
}

// Every C++ dependency of the components to compile, checked against its
// backend and made available (fetched into `deps_dir` if need be) before
// anything compiles, so an unserved version stops the build at once.
ResolvedDependencies resolve_dependencies(const KernelSource& kernel, const std::vector<PlannedBackend>& backends,
                                          const fs::path& deps_dir, const Toolchain& toolchain,
                                          const BuildProgress& progress) {
  ResolvedDependencies resolved;
  for (const PlannedBackend& backend : backends) {
    if (backend.kind != VariantBuildKind::compiled) continue;
    for (const KernelComponentSource& component : kernel.components) {
      if (component.backend != backend.backend) continue;
      for (const std::string& dependency : component.depends) {
        const std::string_view owner = build_config::conventional_backend(dependency);
        if (!owner.empty() && owner != backend.backend)
          throw BuildError("kernel." + component.name + " (backend " + backend.backend + ") depends on " + dependency +
                           ", which is for " + std::string(owner) + " components");
        if (resolved.contains(dependency)) continue;
        ResolvedCppDependency dependency_headers =
            resolve_cpp_dependency(dependency, deps_dir, toolchain.python, [](const std::vector<std::string>& argv) {
              ProcessEnd end = run_build_tool(argv, std::chrono::minutes(10));
              return CommandResult{end.exit_code, end.output};
            });
        if (dependency_headers.fetched)
          progress("fetched " + dependency + " into " + dependency_headers.include_dirs.front().parent_path().string());
        resolved[dependency] = dependency_headers.include_dirs;
      }
    }
  }
  return resolved;
}

}  // namespace

std::string variant_name_for(const std::string& backend, const Toolchain& toolchain, VariantBuildKind kind,
                             const std::optional<Version>& stable_abi) {
  // build-variants.md §1.1; CANN's Python-only variant is torch-npu, the loader's name for it.
  if (kind == VariantBuildKind::python_only) return "torch-" + (backend == "cann" ? std::string("npu") : backend);
  const TorchInstallation& torch = *toolchain.torch;
  std::string compute = backend;
  if (backend == "cuda")
    compute = "cu" + std::to_string(toolchain.cuda->version.major()) + std::to_string(toolchain.cuda->version.minor());
  if (backend == "rocm")
    compute =
        "rocm" + std::to_string(toolchain.rocm->version.major()) + std::to_string(toolchain.rocm->version.minor());
  const std::string system = compute + "-" + toolchain.cpu + "-" + toolchain.os;
  if (stable_abi)
    return "torch-stable-abi" + std::to_string(stable_abi->major()) + std::to_string(stable_abi->minor()) + "-" +
           system;
  return "torch" + std::to_string(torch.version.major()) + std::to_string(torch.version.minor()) +
         (torch.cxx11_abi ? "-cxx11-" : "-cxx98-") + system;
}

namespace {

// Compiles one backend's variant and writes it; `result.failure` says why not.
void build_compiled_variant(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                            const UniqueMaterial& unique, const fs::path& deps_dir,
                            const ResolvedDependencies& dependencies, unsigned jobs, const BuildProgress& progress,
                            VariantBuild& result) {
  VariantPlan plan = plan_variant(request, toolchain, policy, result.backend, unique.unique, deps_dir, dependencies);
  result.variant = plan.variant;
  result.id = plan.id;
  result.directory = fs::absolute(request.output_dir / plan.variant);
  result.gpu_archs = result.backend == "rocm" ? plan.rocm_archs.archs : plan.cuda_capabilities;
  result.log = plan.project_dir / "build.log";
  progress("building " + plan.variant + " (" + plan.id + ") in " + plan.project_dir.string());
  for (const std::string& arch : plan.rocm_archs.compiler_cannot_build)
    progress("skipping " + arch + ": hipcc " + toolchain.rocm->version.str() + " cannot compile it");
  for (const std::string& arch : plan.rocm_archs.outside_policy)
    progress("skipping " + arch + ": not in policy " + policy.name + "'s supported ROCm architectures");
  fs::create_directories(plan.project_dir);
  std::error_code ignored;
  fs::remove(result.log, ignored);
  write_file(plan.project_dir / "generated/registration.h", registration_header());
  write_file(plan.project_dir / "exports.map", export_map(plan.id));
  write_file(plan.project_dir / "kcheck_symbol_pins.c", "// No pins needed (first link).\n");
  write_file(plan.project_dir / "CMakeLists.txt", cmake_project(plan, toolchain));
  result.failure = configure_and_build(plan, toolchain, jobs, request.build_timeout, result.log);
  if (result.failure.empty())
    result.failure = link_within_ceilings(result, plan, toolchain, policy, jobs, request.build_timeout, result.log);
  if (!result.failure.empty()) return;
  write_variant_directory(request, result, unique, plan.project_dir / "cmake-build" / (plan.id + ".abi3.so"), jobs);
  result.built = true;
}

// Writes one backend's Python-only variant (torch-<backend>).
void build_python_only_variant(const BuildRequest& request, const Toolchain& toolchain, const UniqueMaterial& unique,
                               unsigned jobs, const BuildProgress& progress, VariantBuild& result) {
  const KernelSource& kernel = request.kernel;
  result.variant = variant_name_for(result.backend, toolchain, VariantBuildKind::python_only);
  result.id = "_" + kernel.module_name() + "_" + result.backend + "_" + unique.unique;
  result.directory = fs::absolute(request.output_dir / result.variant);
  if (result.backend == "cuda") result.gpu_archs = kernel.noarch_cuda_capabilities;
  if (result.backend == "rocm") result.gpu_archs = kernel.noarch_rocm_archs;
  progress("writing " + result.variant + " (Python only, " + result.id + ")");
  write_variant_directory(request, result, unique, {}, jobs);
  result.built = true;
}

}  // namespace

KernelBuild build_kernel(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                         const RuleRegistry& rules, const BuildProgress& progress) {
  const unsigned jobs = request.jobs ? request.jobs : std::max(1u, std::thread::hardware_concurrency());
  BackendPlan backends = plan_backends(request.kernel, request.backends, toolchain);
  if (!request.backends.empty() && !backends.cannot_build.empty())
    throw BuildError("cannot build on this machine: " + describe_unbuildable(backends.cannot_build));
  if (backends.build.empty())
    throw BuildError("nothing to build on this machine: " + describe_unbuildable(backends.cannot_build));
  check_before_building(request.kernel, backends.build, toolchain);
  const UniqueMaterial unique = request.unique_id.empty() ? unique_material_for(request.kernel.root)
                                                          : UniqueMaterial{request.unique_id, "explicit"};
  const fs::path deps_dir = fs::absolute(request.deps_dir.empty() ? default_deps_dir() : request.deps_dir);
  KernelBuild build;
  build.skipped = backends.cannot_build;
  for (const UnbuildableBackend& skipped : build.skipped)
    progress("skipping " + skipped.backend + ": " + skipped.reason);
  const ResolvedDependencies dependencies =
      resolve_dependencies(request.kernel, backends.build, deps_dir, toolchain, progress);
  for (const PlannedBackend& backend : backends.build) {
    VariantBuild& result = build.variants.emplace_back();
    result.backend = backend.backend;
    result.kind = backend.kind;
    try {
      if (backend.kind == VariantBuildKind::compiled)
        build_compiled_variant(request, toolchain, policy, unique, deps_dir, dependencies, jobs, progress, result);
      else
        build_python_only_variant(request, toolchain, unique, jobs, progress, result);
    } catch (const fs::filesystem_error& error) {  // one variant's file trouble (disk full, permissions) is its failure
      result.built = false;
      result.failure = error.what();
    }
    if (!result.built) continue;
    progress("auditing " + result.directory.string());
    result.audit = run_audit(result.directory, policy, request.self_audit, rules);
  }
  return build;
}

}  // namespace kcheck
