// `kcheck build KERNEL_DIR`: conformant variants from build.toml, each audited.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "checker/audit/audit.h"
#include "checker/audit/repository_settings.h"
#include "checker/builder/kernel_builder.h"
#include "checker/builder/kernel_source_from_config.h"
#include "cli/commands.h"
#include "cli/invocation.h"

namespace kcheck::cli {

namespace {

namespace fs = std::filesystem;

// The running kcheck's own path (for what is found beside it); empty if unknown.
fs::path running_executable() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self;
}

// build.toml's own errors are findings (KC rules: the schema, a listed source
// or the Python package missing), reported and gated as by `kcheck config`:
// any error stops the build before CMake sees the kernel. Returns the exit
// status when it stops, nothing when the build goes on.
std::optional<int> stop_on_build_toml_errors(const TreeFacts& source, const Invocation& invocation,
                                             const std::string& kernel_dir) {
  AuditOptions options = invocation.audit;
  options.selection.select = {"KC"};
  Report report = judge(source, invocation.policy, options, invocation.rules);
  // Errors about build.toml itself: kcheck.toml's (KC006, KC007) do not stop a build.
  const bool build_toml_errors =
      std::any_of(report.findings.begin(), report.findings.end(), [](const Finding& finding) {
        return finding.severity == Severity::error && fs::path(finding.file).filename() == "build.toml";
      });
  if (source.build_config->usable() && !build_toml_errors) return std::nullopt;
  report.input = kernel_dir;
  std::cerr << "kcheck build: " << source.build_config->relative_path << " has errors; nothing was built\n";
  emit(report, invocation.output);
  return std::max(report.gate_status(), 1);
}

}  // namespace

void BuildCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "build", "build conformant variants from build.toml and audit them");
  app->add_option("kernel_dir", kernel_dir, "kernel source directory holding build.toml")->capture_default_str();
  app->add_option("--backends", backends,
                  "backends to build (cann,cpu,cuda,metal,neuron,rocm,tpu,xpu: compiled cpu, cuda and rocm "
                  "here, Python-only variants of any); default: every backend of build.toml buildable here")
      ->allow_extra_args(false);
  app->add_option("--cuda-capabilities", cuda_capabilities, "override CUDA capabilities (8.0,9.0a,...)")
      ->allow_extra_args(false);
  app->add_option("--rocm-archs", rocm_archs, "override ROCm architectures (gfx90a,gfx1030,...)")
      ->allow_extra_args(false);
  app->add_option("--torch", torch,
                  "Torch to build against: a venv, site-packages or torch package dir (default: the active "
                  "virtual environment's, else that of python3 on PATH)");
  app->add_option("--cuda", cuda, "CUDA toolkit root (default: $CUDA_HOME, /usr/local/cuda)");
  app->add_option("--rocm", rocm, "ROCm root or hipcc (default: $ROCM_PATH, /opt/rocm, PATH)");
  app->add_option("--unique-id", unique_id, "unique part of the id (default: git tree hash)");
  app->add_option("--output-dir", output_dir, "where variants go (default: KERNEL_DIR/build)");
  app->add_option("--scratch-dir", scratch_dir, "CMake projects (default: KERNEL_DIR/.kcheck-scratch)");
  app->add_option("--deps-dir", deps_dir,
                  "C++ dependencies' headers, e.g. DIR/cutlass-3.8.0/include; missing ones are fetched from "
                  "PyPI (default: ~/.cache/kcheck/deps)");
  app->add_option("--build-timeout", build_timeout_seconds,
                  "seconds one variant may compile before the build fails (default: 7200)");
  app->add_flag("--rocm-audit-fixtures", rocm_audit_fixtures,
                "build ROCm variants although the Torch found is no ROCm build: their device code is real, "
                "their Torch glue is not, so no ROCm Torch loads them (audit fixtures only)");
}

int BuildCommand::run(const ReportArguments& arguments) const {
  refuse_under_security(arguments, "build");
  Invocation invocation = settle_invocation(arguments);
  // The kernel's sources and its kcheck.toml, read once: build.toml's checks,
  // and the policy the kcheck.toml names (unless --policy), which the
  // variants are pinned to and the self-audit judges with.
  const TreeFacts source = collect_source_facts(kernel_dir);
  if (!source.build_config->present) throw std::invalid_argument("no build.toml in " + kernel_dir);
  invocation.policy = policy_for_repository(source, invocation.policy, invocation.audit);
  if (const std::optional<int> stopped = stop_on_build_toml_errors(source, invocation, kernel_dir)) return *stopped;
  BuildRequest request;
  request.kernel = kernel_source_from_config(*source.build_config);
  request.backends = split_list(backends);
  request.cuda_capabilities = split_list(cuda_capabilities);
  request.rocm_archs = split_list(rocm_archs);
  request.unique_id = unique_id;
  request.output_dir = output_dir.empty() ? fs::path(kernel_dir) / "build" : fs::path(output_dir);
  request.scratch_dir = scratch_dir.empty() ? fs::path(kernel_dir) / ".kcheck-scratch" : fs::path(scratch_dir);
  request.deps_dir = deps_dir;
  if (build_timeout_seconds > 0)
    request.build_timeout = std::chrono::seconds(static_cast<long long>(build_timeout_seconds));
  request.jobs = arguments.threads;
  request.self_audit = invocation.audit;
  // Looked for only without --torch (the default asks python3 on PATH).
  const fs::path default_torch =
      torch.empty() ? default_torch_environment(std::getenv("VIRTUAL_ENV"), running_executable()) : fs::path();
  Toolchain toolchain = detect_toolchain(torch, default_torch, cuda, rocm);
  toolchain.rocm_with_foreign_torch = rocm_audit_fixtures;
  // The self-audit resolves the modules' symbols against the libraries they were built against (KE015).
  if (request.self_audit.library_directories.empty())
    request.self_audit.library_directories = library_directories(toolchain);
  KernelBuild results = build_kernel(request, toolchain, invocation.policy, invocation.rules,
                                     [](const std::string& line) { std::cerr << "kcheck build: " << line << "\n"; });
  int status = 0;
  for (const VariantBuild& variant : results.variants) {
    if (!variant.built) {
      std::cerr << "kcheck build: " << variant.variant << " failed: " << variant.failure << "\n";
      status = 1;
      continue;
    }
    for (const auto& pin : variant.pinning.pinned)
      std::cerr << "kcheck build: pinned " << pin.symbol << " " << pin.needed_version << " -> " << pin.pinned_version
                << "\n";
    for (const auto& substitute : variant.pinning.substituted)
      std::cerr << "kcheck build: substituted " << substitute.symbol << "\n";
    emit(variant.audit, invocation.output);
    status = std::max(status, variant.audit.gate_status());
  }
  return status;
}

}  // namespace kcheck::cli
