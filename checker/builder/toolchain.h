#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/version.h"

namespace kcheck {

// A Torch installation to build against: the `torch` package directory of a
// Python environment (headers in include/, libraries in lib/).
struct TorchInstallation {
  std::filesystem::path package_dir;  // .../site-packages/torch
  Version version;                    // 2.11.0
  std::string version_text;           // "2.11.0+cu130"
  bool cxx11_abi = true;
  std::filesystem::path include_dir() const { return package_dir / "include"; }
  std::filesystem::path api_include_dir() const { return package_dir / "include/torch/csrc/api/include"; }
  std::filesystem::path lib_dir() const { return package_dir / "lib"; }
};

struct CudaToolkit {
  std::filesystem::path root;  // /usr/local/cuda
  Version version;             // 13.0
  std::vector<std::string> supported_capabilities;  // "7.5", "8.0", ... from nvcc --list-gpu-arch
  std::filesystem::path nvcc() const { return root / "bin/nvcc"; }
};

// Everything found on the build host; each member explains itself when absent.
struct Toolchain {
  std::optional<TorchInstallation> torch;
  std::string torch_problem;
  std::filesystem::path python_include_dir;  // holds Python.h
  std::string python_problem;
  std::optional<CudaToolkit> cuda;
  std::string cuda_problem;
  std::string cpu;  // "x86_64", "aarch64"
  std::string os = "linux";
};

// Finds Torch in `torch_hint` (a torch package dir, a venv or a site-packages
// dir) or, when empty, in the default venv; Python's headers through that
// venv's interpreter (or python3); the CUDA toolkit under `cuda_hint`,
// $CUDA_HOME, /usr/local/cuda or nvcc on PATH.
Toolchain detect_toolchain(const std::filesystem::path& torch_hint, const std::filesystem::path& default_venv,
                           const std::filesystem::path& cuda_hint = {});

// Torch's package dir inside a venv, a site-packages dir or itself.
std::optional<std::filesystem::path> find_torch_package(const std::filesystem::path& hint);

}  // namespace kcheck
