#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "checker/builder/kernel_source.h"
#include "checker/builder/toolchain.h"

namespace kcheck {

// Checks the upstream builder makes before or while building (build-toml.md
// §7.2), which `kcheck build` turns into build errors.

// B8: the Torch used must be at least the stable-ABI version set for the
// backend. Empty when it is; else why not.
std::string stable_abi_problem(const KernelSource& kernel, const std::string& backend, const TorchInstallation& torch);

// B9 (build-variants.md §3.4): a decorator of a top-level function or class
// that registers an op (custom_op, triton_op, register_kernel, register_fake,
// register_vmap, register_torch_dispatch; bare or as an attribute) with a
// positional argument must take add_op_namespace_prefix(...) as its first.
struct UnprefixedOpRegistration {
  std::string file;  // relative to the package directory
  int line = 0;
  std::string decorator;  // as written, e.g. "torch.library.custom_op"
};
std::vector<UnprefixedOpRegistration> unprefixed_op_registrations(const std::filesystem::path& package_dir);

}  // namespace kcheck
