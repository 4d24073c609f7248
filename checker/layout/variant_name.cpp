#include "checker/kinds/variant_name.h"

#include <algorithm>
#include <array>
#include <span>

#include "checker/support/text_scan.h"

namespace kcheck {

namespace {

// build-variants.md §1.2, strict form:
//   torch<MAJ><MIN>[-cxx11|-cxx98]-<compute>-<cpu>-<os>
//   torch-stable-abi<MAJ><MIN>-<compute>-<cpu>-<os>
//   tvm-ffi<MAJ><MIN>-<compute>-<cpu>-<os>
//   torch-<Python-only backend>
// where <MAJ> is one digit and <MIN> the digits after it. Matched piece by
// piece, left to right (text_scan.h says why there is no regex).
constexpr std::array<std::string_view, 9> kPythonOnlyBackends = {"cpu",    "cuda", "metal", "rocm",     "xpu",
                                                                 "neuron", "tpu",  "npu",   "universal"};
constexpr std::array<std::string_view, 4> kUnversionedComputes = {"cpu", "metal", "neuron", "tpu"};
constexpr std::array<std::string_view, 4> kVersionedComputePrefixes = {"cu", "rocm", "xpu", "cann"};
constexpr std::array<std::string_view, 2> kCpus = {"x86_64", "aarch64"};
constexpr std::array<std::string_view, 3> kOses = {"linux", "darwin", "windows"};

bool one_of(std::span<const std::string_view> values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// cpu, metal, neuron, tpu, or cu/rocm/xpu/cann followed by two digits or more.
bool is_compute_token(std::string_view compute) {
  if (one_of(kUnversionedComputes, compute)) return true;
  for (std::string_view prefix : kVersionedComputePrefixes)
    if (compute.starts_with(prefix) && compute.size() >= prefix.size() + 2 &&
        text::consists_of(compute.substr(prefix.size()), text::is_digit))
      return true;
  return false;
}

// The pieces of a name that follows the grammar.
struct GrammarPieces {
  VariantKind kind = VariantKind::torch;
  std::string_view python_only_backend;
  std::string_view major, minor, cxx_tag, compute, cpu, os;
};

// The text up to the next '-' (or the end), consumed.
std::string_view take_field(text::Scanner& scan) {
  return scan.take_while([](char c) { return c != '-'; });
}

std::optional<GrammarPieces> match_grammar(std::string_view name) {
  GrammarPieces pieces;
  if (name.starts_with("torch-") && one_of(kPythonOnlyBackends, name.substr(6))) {
    pieces.kind = VariantKind::python_only;
    pieces.python_only_backend = name.substr(6);
    return pieces;
  }
  text::Scanner scan(name);
  if (scan.take("torch-stable-abi"))
    pieces.kind = VariantKind::torch_stable_abi;
  else if (scan.take("tvm-ffi"))
    pieces.kind = VariantKind::tvm_ffi;
  else if (scan.take("torch"))
    pieces.kind = VariantKind::torch;
  else
    return std::nullopt;
  const std::string_view version = scan.take_while(text::is_digit);
  if (version.size() < 2) return std::nullopt;
  pieces.major = version.substr(0, 1);
  pieces.minor = version.substr(1);
  if (pieces.kind == VariantKind::torch) {
    if (scan.take("-cxx11"))
      pieces.cxx_tag = "cxx11";
    else if (scan.take("-cxx98"))
      pieces.cxx_tag = "cxx98";
  }
  if (!scan.take('-')) return std::nullopt;
  pieces.compute = take_field(scan);
  if (!scan.take('-')) return std::nullopt;
  pieces.cpu = take_field(scan);
  if (!scan.take('-')) return std::nullopt;
  pieces.os = take_field(scan);
  if (!scan.done() || !is_compute_token(pieces.compute) || !one_of(kCpus, pieces.cpu) || !one_of(kOses, pieces.os))
    return std::nullopt;
  return pieces;
}

struct ComputeToken {
  std::string backend;
  std::optional<Version> version;  // nullopt: the digits do not fit a version component
};

// "cu130" -> cuda 13.0: the last digit is the minor, the rest the major.
ComputeToken decode_compute(const std::string& compute) {
  for (const auto& [prefix, backend] : {std::pair{"cu", "cuda"}, {"rocm", "rocm"}, {"xpu", "xpu"}, {"cann", "cann"}}) {
    std::string_view p(prefix);
    if (compute.starts_with(p) && compute.size() > p.size() &&
        std::isdigit(static_cast<unsigned char>(compute[p.size()]))) {
      std::string digits = compute.substr(p.size());
      std::string major = digits.substr(0, digits.size() - 1);
      std::string minor = digits.substr(digits.size() - 1);
      return {backend, Version::parse(major + "." + minor)};
    }
  }
  return {compute, Version()};  // cpu, metal, ...: no version
}

// nullopt when a component overflows (torch99999999999999999999-...).
std::optional<Version> version_of(std::string_view major, std::string_view minor) {
  return Version::parse(std::string(major) + "." + std::string(minor));
}

}  // namespace

std::optional<VariantName> parse_variant_name(std::string_view name, std::string* why_not) {
  const std::string written(name);
  auto reject = [&](std::string reason) -> std::optional<VariantName> {
    if (why_not) *why_not = std::move(reason);
    return std::nullopt;
  };
  const std::optional<GrammarPieces> pieces = match_grammar(name);
  if (!pieces)
    return reject("'" + written +
                  "' does not follow the variant grammar torch<MAJ><MIN>[-cxx11]-<compute>-<cpu>-<os> "
                  "(e.g. torch213-cxx11-cu130-x86_64-linux), torch-stable-abi<MAJ><MIN>-..., tvm-ffi<MAJ><MIN>-... "
                  "or torch-<backend>");
  VariantName variant;
  variant.kind = pieces->kind;
  if (pieces->kind == VariantKind::python_only) {
    const std::string_view backend = pieces->python_only_backend;
    variant.backend = backend == "npu" ? "cann" : std::string(backend);
    return variant;
  }
  const std::optional<Version> framework_version = version_of(pieces->major, pieces->minor);
  variant.cxx_tag = pieces->cxx_tag;
  variant.compute = pieces->compute;
  ComputeToken compute = decode_compute(variant.compute);
  if (!framework_version || !compute.version)
    return reject("'" + written + "' has a version number too large to be one");
  variant.framework_version = *framework_version;
  variant.backend = compute.backend;
  variant.backend_version = *compute.version;
  variant.cpu = pieces->cpu;
  variant.os = pieces->os;
  if (!variant.cxx_tag.empty() && variant.os != "linux")
    return reject("'" + written + "' carries the C++ ABI tag -" + variant.cxx_tag + " on " + variant.os +
                  ": the loader never selects a tagged variant off Linux; drop the tag");
  return variant;
}

}  // namespace kcheck
