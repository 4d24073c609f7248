#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "checker/support/version.h"

namespace kcheck {

enum class VariantKind { torch, torch_stable_abi, tvm_ffi, python_only };

// A parsed variant directory name (build-variants.md §1).
struct VariantName {
  VariantKind kind = VariantKind::torch;
  Version framework_version;  // torch 2.13, stable ABI 2.11, tvm-ffi 0.1; empty for python-only
  std::string cxx_tag;        // "cxx11", "cxx98" or ""
  std::string compute;        // "cpu", "cu130", "rocm71", ... ; "" for python-only
  std::string backend;        // metadata backend.type: cpu, cuda, rocm, xpu, metal, neuron, tpu, cann; "universal"
  Version backend_version;    // cu130 -> 13.0
  std::string cpu;            // "x86_64", "aarch64"
  std::string os;             // "linux", "darwin", "windows"

  std::string system() const { return cpu + "-" + os; }
  bool compiled() const { return kind != VariantKind::python_only; }
};

// Why a name is not a variant name (the message for KL002).
struct VariantNameError {
  std::string reason;
};

// Strict grammar of build-variants.md §1.2 plus its semantic rules.
std::optional<VariantName> parse_variant_name(std::string_view name, std::string* why_not = nullptr);

}  // namespace kcheck
