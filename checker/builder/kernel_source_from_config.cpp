#include "checker/builder/kernel_source_from_config.h"

#include "checker/builder/kernel_builder.h"

namespace kcheck {

KernelSource kernel_source_from_config(const BuildConfigFacts& config) {
  if (!config.present) throw BuildError("no build.toml in " + config.kernel_dir.string());
  if (!config.usable())
    throw BuildError(config.relative_path + " has errors; run `kcheck config " + config.kernel_dir.string() +
                     "` for the findings");
  if (config.framework.kind != FrameworkKind::torch && config.framework.kind != FrameworkKind::torch_noarch)
    throw BuildError("kcheck build builds [torch] and [torch-noarch] kernels; this one is [" +
                     std::string(to_string(config.framework.kind)) + "], which needs the TVM-FFI toolchain");
  KernelSource kernel;
  kernel.root = std::filesystem::absolute(config.kernel_dir).lexically_normal();
  kernel.name = config.general.name->value;
  kernel.version = config.general.version.value_or(0);
  kernel.license = config.general.license ? config.general.license->value : "";
  kernel.backends = config.general.backends.values();
  kernel.noarch = config.framework.kind == FrameworkKind::torch_noarch;
  kernel.noarch_cuda_capabilities = config.framework.cuda_capabilities.values();
  kernel.noarch_rocm_archs = config.framework.rocm_archs.values();
  auto version_of = [](const std::optional<ConfigVersion>& value) -> std::optional<Version> {
    return value ? value->version : std::nullopt;
  };
  kernel.torch_minver = version_of(config.framework.minver);
  kernel.torch_maxver = version_of(config.framework.maxver);
  if (auto cuda = config.general.backend_settings.find("cuda"); cuda != config.general.backend_settings.end()) {
    kernel.cuda_minver = version_of(cuda->second.minver);
    kernel.cuda_maxver = version_of(cuda->second.maxver);
  }
  kernel.binding_sources = config.framework.src.values();
  kernel.binding_includes = config.framework.include.values();
  kernel.binding_cxx_flags = config.framework.cxx_flags.values();
  // *.py always ships; pyext adds data extensions (*.pyi never ships in compiled builds).
  for (const std::string& extension : config.framework.pyext.values())
    if (extension != "py" && extension != "pyi") kernel.python_extensions.push_back(extension);
  kernel.python_depends = config.general.python_depends.values();
  for (const auto& [backend, settings] : config.general.backend_settings)
    kernel.backend_python_depends[backend] = settings.python_depends.values();
  if (config.framework.stable_abi_all_backends && config.framework.stable_abi_all_backends->version)
    for (const std::string& backend : kernel.backends)
      kernel.stable_abi[backend] = *config.framework.stable_abi_all_backends->version;
  for (const auto& [backend, version] : config.framework.stable_abi_per_backend)
    if (version.version) kernel.stable_abi[backend] = *version.version;
  for (const KernelComponent& component : config.components) {
    if (!component.backend) continue;
    kernel.components.push_back({component.name, component.backend->value, component.src.values(),
                                 component.include.values(), component.cuda_capabilities.values(),
                                 component.cxx_flags.values(), component.cuda_flags.values(),
                                 component.rocm_archs.values(), component.hip_flags.values(),
                                 component.depends.values(), version_of(component.cuda_minver)});
  }
  return kernel;
}

}  // namespace kcheck
