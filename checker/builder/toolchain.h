#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/support/version.h"

namespace kcheck {

// A Torch installation to build against: the `torch` package directory of a
// Python environment (headers in include/, libraries in lib/).
struct TorchInstallation {
  std::filesystem::path package_dir;  // .../site-packages/torch
  Version version;                    // 2.11.0
  std::string version_text;           // "2.11.0+cu130"
  bool cxx11_abi = true;
  // torch.version.hip of a ROCm build of Torch ("6.4.43482"); "" for a CPU
  // or CUDA build, whose headers cannot compile a kernel's HIP sources.
  std::string hip_version;
  std::filesystem::path include_dir() const { return package_dir / "include"; }
  std::filesystem::path api_include_dir() const { return package_dir / "include/torch/csrc/api/include"; }
  std::filesystem::path lib_dir() const { return package_dir / "lib"; }
};

struct CudaToolkit {
  std::filesystem::path root;                       // /usr/local/cuda
  Version version;                                  // 13.0
  std::vector<std::string> supported_capabilities;  // "7.5", "8.0", ... from nvcc --list-gpu-arch
  std::filesystem::path nvcc() const { return root / "bin/nvcc"; }
};

// The HIP compiler of a ROCm installation (or of Debian's HIP packages) and
// the HIP runtime it links against.
struct RocmToolkit {
  std::filesystem::path hipcc;            // /usr/bin/hipcc
  Version version;                        // 5.2, from "HIP version: 5.2.21153-0"
  std::filesystem::path runtime_library;  // .../libamdhip64.so
};

// Everything found on the build host; each member explains itself when absent.
struct Toolchain {
  std::optional<TorchInstallation> torch;
  std::string torch_problem;
  std::filesystem::path python;              // the interpreter of Torch's environment (else python3)
  std::filesystem::path python_include_dir;  // holds Python.h
  std::string python_problem;
  std::optional<CudaToolkit> cuda;
  std::string cuda_problem;
  std::optional<RocmToolkit> rocm;
  std::string rocm_problem;
  // --rocm-audit-fixtures: ROCm variants built against a Torch that is no
  // ROCm build (its device code real, its Torch glue not): audit fixtures.
  bool rocm_with_foreign_torch = false;
  std::string cpu;  // "x86_64", "aarch64"
  std::string os = "linux";
};

// The directories of the libraries a variant built with `toolchain` loads
// (Torch's lib/, the CUDA toolkit's), then the system's: KE015's closure.
std::vector<std::filesystem::path> library_directories(const Toolchain& toolchain);

// Finds Torch in `torch_hint` (a torch package dir, a venv or a site-packages
// dir) or, when empty, in the default venv; Python's headers through that
// venv's interpreter (or python3); the CUDA toolkit under `cuda_hint`,
// $CUDA_HOME, /usr/local/cuda or nvcc on PATH; hipcc under `rocm_hint`,
// $ROCM_PATH, /opt/rocm or on PATH.
// Where `kcheck build` looks for Torch without --torch: the active virtual
// environment ($VIRTUAL_ENV, `virtual_env`), else the .venv of the checkout
// kcheck was built in (`executable`'s parent's sibling: <checkout>/_build/kcheck
// finds <checkout>/.venv, scripts/setup.sh's), else the Torch package of
// `python` (python3 on PATH: it is asked where `torch` is). Never a path
// fixed when kcheck was built; empty when there is none.
std::filesystem::path default_torch_environment(const char* virtual_env, const std::filesystem::path& executable,
                                                const std::string& python = "python3");

Toolchain detect_toolchain(const std::filesystem::path& torch_hint, const std::filesystem::path& default_venv,
                           const std::filesystem::path& cuda_hint = {}, const std::filesystem::path& rocm_hint = {});

// hipcc and its version under `hint` (a ROCm root or the hipcc executable),
// $ROCM_PATH, /opt/rocm or PATH, with the runtime library it links;
// `problem` says what is missing otherwise.
std::optional<RocmToolkit> find_rocm(const std::filesystem::path& hint, std::string& problem);

// Whether hipcc compiles device code for `arch` (its clang rejects
// processors it does not know, e.g. gfx942 in ROCm 5.2).
bool hipcc_supports_arch(const RocmToolkit& rocm, const std::string& arch);

// Torch's package dir inside a venv, a site-packages dir or itself.
// torch.version.hip as Torch's version.py writes it (`hip: Optional[str] =
// '6.4.43482'`): set only in a ROCm build of Torch; "" for `None` or no line.
std::string torch_hip_version(std::string_view version_py);

std::optional<std::filesystem::path> find_torch_package(const std::filesystem::path& hint);

}  // namespace kcheck
