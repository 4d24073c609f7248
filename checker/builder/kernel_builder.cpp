#include "checker/builder/kernel_builder.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "checker/audit/audit.h"
#include "checker/builder/build_prechecks.h"
#include "checker/builder/generated_sources.h"
#include "checker/builder/gpu_archs.h"
#include "checker/builder/build_tool.h"
#include "checker/builder/unique_id.h"
#include "checker/core/tree_facts.h"
#include "checker/layout/tree_walker.h"
#include "checker/metadata/digest.h"
#include "checker/python/python_facts.h"

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

std::string cmake_list(const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& item : items) list += "\n  " + cmake_quote(item);
  return list;
}

// "8.0" -> "80-real"; "9.0a" -> "90a-real"; "12.0+PTX" -> "120" (SASS and PTX).
std::string cmake_cuda_architecture(const std::string& capability) {
  bool ptx = capability.ends_with("+PTX");
  std::string arch = capability.substr(0, ptx ? capability.size() - 4 : capability.size());
  arch.erase(std::remove(arch.begin(), arch.end(), '.'), arch.end());
  return ptx ? arch : arch + "-real";
}

std::string strip_ptx(const std::string& capability) {
  return capability.ends_with("+PTX") ? capability.substr(0, capability.size() - 4) : capability;
}

// The capabilities to compile: requested, else those build.toml lists, else
// the policy's supported list; always limited to what nvcc supports. The
// highest also gets PTX so newer GPUs can JIT it.
std::vector<std::string> cuda_capabilities_for(const BuildRequest& request, const std::vector<std::string>& listed,
                                               const CudaToolkit& cuda, const Policy& policy) {
  const std::vector<std::string>& wanted =
      !request.cuda_capabilities.empty() ? request.cuda_capabilities
      : !listed.empty()                  ? listed
                                         : policy.cuda_supported_capabilities;
  std::vector<std::string> capabilities;
  for (const std::string& capability : wanted) {
    std::string base = strip_ptx(capability);
    std::string numeric = base;
    if (!numeric.empty() && std::isalpha(static_cast<unsigned char>(numeric.back()))) numeric.pop_back();
    if (std::find(cuda.supported_capabilities.begin(), cuda.supported_capabilities.end(), numeric) !=
        cuda.supported_capabilities.end())
      capabilities.push_back(capability);
  }
  if (capabilities.empty()) throw BuildError("none of the CUDA capabilities (" + std::to_string(wanted.size()) +
                                             " listed) is supported by nvcc " + cuda.version.str());
  std::sort(capabilities.begin(), capabilities.end(), [](const std::string& a, const std::string& b) {
    return *Version::parse(strip_ptx(a).substr(0, strip_ptx(a).find_first_not_of("0123456789."))) <
           *Version::parse(strip_ptx(b).substr(0, strip_ptx(b).find_first_not_of("0123456789.")));
  });
  if (std::none_of(capabilities.begin(), capabilities.end(), [](const auto& c) { return c.ends_with("+PTX"); }))
    capabilities.back() += "+PTX";
  return capabilities;
}

struct VariantPlan {
  std::string backend;
  std::string variant;
  std::string id;
  std::vector<std::string> sources;  // absolute; compiled by CMake's compilers (or headers)
  std::vector<std::string> includes; // absolute
  std::vector<std::string> cuda_capabilities;
  std::vector<std::pair<std::string, std::vector<std::string>>> source_options;  // per-source flags
  // rocm: the device sources (.cu, .hip) hipcc compiles, with their flags, and the archs.
  std::vector<std::pair<std::string, std::vector<std::string>>> hip_sources;
  RocmArchSelection rocm_archs;
  fs::path project_dir;
};

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
    const std::string object = "${CMAKE_CURRENT_BINARY_DIR}/hip_" + std::to_string(i) + "_" +
                               fs::path(source).stem().string() + ".o";
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

std::string cmake_project(const VariantPlan& plan, const KernelSource& kernel, const Toolchain& toolchain) {
  const bool cuda = plan.backend == "cuda";
  const TorchInstallation& torch = *toolchain.torch;
  std::vector<std::string> includes = {(plan.project_dir / "generated").string(), kernel.root.string()};
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
  // rocm: the glue links the Torch found (there is no ROCm Torch here) and the HIP runtime.
  if (plan.backend == "rocm") libraries.push_back(toolchain.rocm->runtime_library.string());
  const std::string definitions = "-DTORCH_EXTENSION_NAME=" + plan.id + " -D" + backend_macro(plan.backend) +
                                  " -DPy_LIMITED_API=0x03090000 -D_GLIBCXX_USE_CXX11_ABI=" +
                                  (torch.cxx11_abi ? "1" : "0");
  std::vector<std::string> hip_objects;
  const std::string hip_commands =
      plan.backend == "rocm" ? hip_compile_commands(plan, includes, definitions, toolchain, hip_objects) : "";
  std::vector<std::string> architectures;
  for (const std::string& capability : plan.cuda_capabilities) architectures.push_back(cmake_cuda_architecture(capability));

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
  if (cuda) {
    std::string joined;
    for (const std::string& arch : architectures) joined += (joined.empty() ? "" : ";") + arch;
    text += " CUDA_ARCHITECTURES " + cmake_quote(joined);
  }
  text += ")\n";
  text += "target_include_directories(variant PRIVATE" + cmake_list(includes) + ")\n";
  text += "target_compile_definitions(variant PRIVATE TORCH_EXTENSION_NAME=" + plan.id + " " +
          backend_macro(plan.backend) + " Py_LIMITED_API=0x03090000 _GLIBCXX_USE_CXX11_ABI=" +
          (torch.cxx11_abi ? "1" : "0") + ")\n";
  text += "target_compile_options(variant PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O3> "
          "$<$<COMPILE_LANGUAGE:CUDA>:-O3 --expt-relaxed-constexpr --expt-extended-lambda -Xcompiler=-fvisibility=hidden>)\n";
  for (const auto& [source, options] : plan.source_options) {
    if (options.empty()) continue;
    std::string joined;
    for (const std::string& option : options) joined += (joined.empty() ? "" : ";") + option;
    text += "set_source_files_properties(" + cmake_quote(source) + " PROPERTIES COMPILE_OPTIONS " +
            cmake_quote(joined) + ")\n";
  }
  text += "target_link_directories(variant PRIVATE" + cmake_list(link_dirs) + ")\n";
  text += "target_link_libraries(variant PRIVATE" + cmake_list(libraries) + ")\n";
  text += "target_link_options(variant PRIVATE -static-libstdc++ \"LINKER:--exclude-libs,ALL\" \"LINKER:--as-needed\" "
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

VariantPlan plan_variant(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                         const std::string& backend, const std::string& unique) {
  const KernelSource& kernel = request.kernel;
  VariantPlan plan;
  plan.backend = backend;
  plan.variant = variant_name_for(backend, toolchain);
  plan.id = "_" + kernel.module_name() + "_" + backend + "_" + unique;
  plan.project_dir = fs::absolute(request.scratch_dir / plan.variant);
  // cxx-flags apply to C++ sources, cuda-flags / hip-flags to device sources.
  auto add_sources = [&](const std::vector<std::string>& sources, const std::vector<std::string>& cxx_options,
                         const std::vector<std::string>& device_options) {
    for (const std::string& source : sources) {
      std::string absolute = (kernel.root / source).lexically_normal().string();
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
  for (const std::string& include : kernel.binding_includes) plan.includes.push_back((kernel.root / include).string());
  std::vector<std::string> listed_capabilities;
  std::vector<std::string> listed_rocm_archs;
  for (const KernelComponentSource& component : kernel.components) {
    if (component.backend != backend) continue;
    add_sources(component.sources, component.cxx_flags, backend == "rocm" ? component.hip_flags : component.cuda_flags);
    for (const std::string& include : component.includes) plan.includes.push_back((kernel.root / include).string());
    listed_capabilities.insert(listed_capabilities.end(), component.cuda_capabilities.begin(),
                               component.cuda_capabilities.end());
    listed_rocm_archs.insert(listed_rocm_archs.end(), component.rocm_archs.begin(), component.rocm_archs.end());
  }
  if (backend == "cuda") plan.cuda_capabilities = cuda_capabilities_for(request, listed_capabilities, *toolchain.cuda, policy);
  if (backend == "rocm") {
    if (plan.hip_sources.empty()) throw BuildError("backend rocm has no device source (.cu, .hip) in build.toml");
    plan.rocm_archs = select_rocm_archs(request.rocm_archs, listed_rocm_archs, policy.rocm_supported_archs,
                                        [&](const std::string& arch) { return hipcc_supports_arch(*toolchain.rocm, arch); });
  }
  return plan;
}

std::string configure_and_build(const VariantPlan& plan, const Toolchain& toolchain, unsigned jobs) {
  const fs::path build_dir = plan.project_dir / "cmake-build";
  std::vector<std::string> configure = {"cmake", "-S", plan.project_dir.string(), "-B", build_dir.string(),
                                        "-DCMAKE_BUILD_TYPE=Release"};
  if (run_build_tool({"ninja", "--version"}).exit_code == 0) configure.insert(configure.end(), {"-G", "Ninja"});
  if (plan.backend == "cuda") configure.push_back("-DCMAKE_CUDA_COMPILER=" + toolchain.cuda->nvcc().string());
  if (!fs::exists(build_dir / "CMakeCache.txt")) {
    ProcessEnd configured = run_build_tool(configure);
    if (configured.exit_code != 0) return "CMake configuration failed:\n" + tail(configured.output);
  }
  ProcessEnd built = run_build_tool({"cmake", "--build", build_dir.string(), "-j", std::to_string(jobs)});
  if (built.exit_code != 0) return "compilation failed:\n" + tail(built.output);
  return {};
}

fs::path locate_system_library(const std::string& library) {
  ProcessEnd found = run_build_tool({"cc", "-print-file-name=" + library});
  std::string path = found.output.substr(0, found.output.find('\n'));
  return path.empty() ? fs::path(library) : fs::path(path);
}

// Links, then pins imports above the ceiling and links again (see symbol_pinning.h).
std::string link_within_ceilings(VariantBuild& result, const VariantPlan& plan, const Toolchain& toolchain,
                                 const Policy& policy, unsigned jobs) {
  const fs::path module = plan.project_dir / "cmake-build" / (plan.id + ".abi3.so");
  auto ceilings = policy.native.symbol_ceilings.find(toolchain.cpu);
  if (ceilings == policy.native.symbol_ceilings.end()) return {};
  result.pinning = plan_symbol_pinning(read_elf_facts(module), ceilings->second, locate_system_library);
  if (!result.pinning.unresolved.empty()) {
    std::string why = "imports above the policy's symbol-version ceilings that cannot be pinned:";
    for (const std::string& problem : result.pinning.unresolved) why += "\n  " + problem;
    return why;
  }
  if (result.pinning.empty()) return {};
  write_file(plan.project_dir / "kcheck_symbol_pins.c", render_pinning_source(result.pinning, toolchain.cpu));
  return configure_and_build(plan, toolchain, jobs);
}

bool ships_as_python(const fs::path& file, const std::vector<std::string>& extensions) {
  std::string extension = file.extension().string();
  if (extension.empty() || extension == ".pyi" || extension == ".pyc") return false;
  return std::find(extensions.begin(), extensions.end(), extension.substr(1)) != extensions.end();
}

void copy_python_package(const KernelSource& kernel, const fs::path& variant_dir) {
  const fs::path package = kernel.root / "torch-ext" / kernel.module_name();
  if (!fs::exists(package / "__init__.py"))
    throw BuildError("no Python package at " + package.string() + " (torch-ext/<module>/__init__.py)");
  for (fs::recursive_directory_iterator it(package), end; it != end; ++it) {
    if (it->path().filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !ships_as_python(it->path(), kernel.python_extensions)) continue;
    fs::path target = variant_dir / it->path().lexically_relative(package);
    fs::create_directories(target.parent_path());
    fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing);
  }
}

nlohmann::json metadata_for(const KernelSource& kernel, const VariantBuild& variant, const UniqueMaterial& unique) {
  std::vector<std::string> depends = kernel.python_depends;
  if (auto backend = kernel.backend_python_depends.find(variant.backend); backend != kernel.backend_python_depends.end())
    depends.insert(depends.end(), backend->second.begin(), backend->second.end());
  nlohmann::json backend = {{"type", variant.backend}};
  if (!variant.gpu_archs.empty()) {
    std::vector<std::string> archs = variant.gpu_archs;
    std::sort(archs.begin(), archs.end());  // as strings, like the upstream writer
    backend["archs"] = archs;
  }
  nlohmann::json metadata = {{"id", variant.id},       {"name", kernel.name},         {"version", kernel.version},
                             {"license", kernel.license}, {"python-depends", depends}, {"kernel-depends", nlohmann::json::array()},
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

void write_variant_directory(const BuildRequest& request, const VariantPlan& plan, VariantBuild& result,
                             const UniqueMaterial& unique, unsigned jobs) {
  const KernelSource& kernel = request.kernel;
  fs::remove_all(result.directory);
  fs::create_directories(result.directory);
  copy_python_package(kernel, result.directory);
  write_file(result.directory / "_ops.py", ops_module(plan.id));
  write_file(result.directory / kernel.module_name() / "__init__.py",
             compatibility_package(top_level_public_names(result.directory / "__init__.py")));
  fs::copy_file(plan.project_dir / "cmake-build" / (plan.id + ".abi3.so"), result.directory / (plan.id + ".abi3.so"));
  nlohmann::json metadata = metadata_for(kernel, result, unique);
  VariantFacts written;
  written.path = result.directory;
  written.files = walk_variant(result.directory);
  ComputedDigest digest = compute_variant_digest(written, DigestAlgorithm::sha256, jobs);
  if (!digest.errors.empty()) throw BuildError("cannot hash " + digest.errors.begin()->first + ": " + digest.errors.begin()->second);
  metadata["digest"] = digest.digest;
  write_file(result.directory / "metadata.json", metadata.dump(2) + "\n");
}

std::vector<std::string> backends_to_build(const BuildRequest& request, const Toolchain& toolchain) {
  const std::vector<std::string>& declared = request.kernel.backends;
  std::vector<std::string> backends = request.backends;
  if (backends.empty())
    for (const std::string& backend : declared)
      if (backend == "cpu" || (backend == "cuda" && toolchain.cuda) || (backend == "rocm" && toolchain.rocm))
        backends.push_back(backend);
  for (const std::string& backend : backends) {
    if (std::find(declared.begin(), declared.end(), backend) == declared.end())
      throw BuildError("backend '" + backend + "' is not in build.toml's general.backends");
    if (backend != "cpu" && backend != "cuda" && backend != "rocm")
      throw BuildError("kcheck build cannot build backend '" + backend + "' (it builds cpu, cuda and rocm)");
    if (backend == "cuda" && !toolchain.cuda) throw BuildError("cannot build cuda: " + toolchain.cuda_problem);
    if (backend == "rocm" && !toolchain.rocm) throw BuildError("cannot build rocm: " + toolchain.rocm_problem);
  }
  return backends;
}

// What the upstream builder refuses (build-toml.md B8, B9), refused before compiling anything.
void check_before_building(const KernelSource& kernel, const std::vector<std::string>& backends,
                           const TorchInstallation& torch) {
  for (const std::string& backend : backends)
    if (std::string problem = stable_abi_problem(kernel, backend, torch); !problem.empty())
      throw BuildError("cannot build " + backend + ": " + problem);
  const fs::path package = kernel.root / "torch-ext" / kernel.module_name();
  std::vector<UnprefixedOpRegistration> unprefixed = unprefixed_op_registrations(package);
  if (unprefixed.empty()) return;
  std::string why = "op registrations in " + package.string() +
                    " must take add_op_namespace_prefix(...) as their first argument (from ._ops):";
  for (const UnprefixedOpRegistration& registration : unprefixed)
    why += "\n  " + registration.file + ":" + std::to_string(registration.line) + " " + registration.decorator;
  throw BuildError(why);
}

}  // namespace

std::string variant_name_for(const std::string& backend, const Toolchain& toolchain) {
  const TorchInstallation& torch = *toolchain.torch;
  std::string compute = backend;
  if (backend == "cuda")
    compute = "cu" + std::to_string(toolchain.cuda->version.major()) + std::to_string(toolchain.cuda->version.minor());
  if (backend == "rocm")
    compute = "rocm" + std::to_string(toolchain.rocm->version.major()) + std::to_string(toolchain.rocm->version.minor());
  return "torch" + std::to_string(torch.version.major()) + std::to_string(torch.version.minor()) +
         (torch.cxx11_abi ? "-cxx11-" : "-cxx98-") + compute + "-" + toolchain.cpu + "-" + toolchain.os;
}

std::vector<VariantBuild> build_kernel(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                                       const RuleRegistry& rules, const BuildProgress& progress) {
  if (!toolchain.torch) throw BuildError("cannot build: " + toolchain.torch_problem);
  if (!toolchain.python_problem.empty()) throw BuildError("cannot build: " + toolchain.python_problem);
  const unsigned jobs = request.jobs ? request.jobs : std::max(1u, std::thread::hardware_concurrency());
  const UniqueMaterial unique =
      request.unique_id.empty() ? unique_material_for(request.kernel.root) : UniqueMaterial{request.unique_id, "explicit"};
  const std::vector<std::string> backends = backends_to_build(request, toolchain);
  check_before_building(request.kernel, backends, *toolchain.torch);
  std::vector<VariantBuild> results;
  for (const std::string& backend : backends) {
    VariantPlan plan = plan_variant(request, toolchain, policy, backend, unique.unique);
    VariantBuild& result = results.emplace_back();
    result.variant = plan.variant;
    result.id = plan.id;
    result.backend = backend;
    result.directory = fs::absolute(request.output_dir / plan.variant);
    result.gpu_archs = backend == "rocm" ? plan.rocm_archs.archs : plan.cuda_capabilities;
    progress("building " + plan.variant + " (" + plan.id + ") in " + plan.project_dir.string());
    for (const std::string& arch : plan.rocm_archs.compiler_cannot_build)
      progress("skipping " + arch + ": hipcc " + toolchain.rocm->version.str() + " cannot compile it");
    for (const std::string& arch : plan.rocm_archs.outside_policy)
      progress("skipping " + arch + ": not in policy " + policy.name + "'s supported ROCm architectures");
    write_file(plan.project_dir / "generated/registration.h", registration_header());
    write_file(plan.project_dir / "exports.map", export_map(plan.id));
    write_file(plan.project_dir / "kcheck_symbol_pins.c", "// No pins needed (first link).\n");
    write_file(plan.project_dir / "CMakeLists.txt", cmake_project(plan, request.kernel, toolchain));
    result.failure = configure_and_build(plan, toolchain, jobs);
    if (result.failure.empty()) result.failure = link_within_ceilings(result, plan, toolchain, policy, jobs);
    if (!result.failure.empty()) continue;
    write_variant_directory(request, plan, result, unique, jobs);
    result.built = true;
    progress("auditing " + result.directory.string());
    AuditOptions options;
    result.audit = run_audit(result.directory, policy, options, rules);
  }
  return results;
}

}  // namespace kcheck
