#include "checker/layout/variant_name.h"

#include <regex>

namespace kcheck {

namespace {

// build-variants.md §1.2, strict form. Groups: 1–2 torch version, 3 cxx tag,
// 4–5 stable-ABI version, 6–7 tvm-ffi version, 8 compute, 9 cpu, 10 os,
// 11 Python-only backend.
const char* const kVariantPattern =
    "^(?:(?:torch([0-9])([0-9]+)(?:-(cxx11|cxx98))?"
    "|torch-stable-abi([0-9])([0-9]+)"
    "|tvm-ffi([0-9])([0-9]+))"
    "-(cpu|metal|neuron|tpu|cu[0-9]{2,}|rocm[0-9]{2,}|xpu[0-9]{2,}|cann[0-9]{2,})"
    "-(x86_64|aarch64)-(linux|darwin|windows)"
    "|torch-(cpu|cuda|metal|rocm|xpu|neuron|tpu|npu|universal))$";

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
std::optional<Version> version_of(const std::ssub_match& major, const std::ssub_match& minor) {
  return Version::parse(major.str() + "." + minor.str());
}

}  // namespace

std::optional<VariantName> parse_variant_name(std::string_view name, std::string* why_not) {
  static const std::regex pattern(kVariantPattern);  // immutable, compiled once
  std::string text(name);
  std::smatch match;
  auto reject = [&](std::string reason) -> std::optional<VariantName> {
    if (why_not) *why_not = std::move(reason);
    return std::nullopt;
  };
  if (!std::regex_match(text, match, pattern))
    return reject("'" + text +
                  "' does not follow the variant grammar torch<MAJ><MIN>[-cxx11]-<compute>-<cpu>-<os> "
                  "(e.g. torch213-cxx11-cu130-x86_64-linux), torch-stable-abi<MAJ><MIN>-..., tvm-ffi<MAJ><MIN>-... "
                  "or torch-<backend>");
  VariantName variant;
  if (match[11].matched) {
    variant.kind = VariantKind::python_only;
    std::string backend = match[11].str();
    variant.backend = backend == "npu" ? "cann" : backend;
    return variant;
  }
  std::optional<Version> framework_version;
  if (match[1].matched) {
    variant.kind = VariantKind::torch;
    framework_version = version_of(match[1], match[2]);
    variant.cxx_tag = match[3].str();
  } else if (match[4].matched) {
    variant.kind = VariantKind::torch_stable_abi;
    framework_version = version_of(match[4], match[5]);
  } else {
    variant.kind = VariantKind::tvm_ffi;
    framework_version = version_of(match[6], match[7]);
  }
  variant.compute = match[8].str();
  ComputeToken compute = decode_compute(variant.compute);
  if (!framework_version || !compute.version)
    return reject("'" + text + "' has a version number too large to be one");
  variant.framework_version = *framework_version;
  variant.backend = compute.backend;
  variant.backend_version = *compute.version;
  variant.cpu = match[9].str();
  variant.os = match[10].str();
  if (!variant.cxx_tag.empty() && variant.os != "linux")
    return reject("'" + text + "' carries the C++ ABI tag -" + variant.cxx_tag + " on " + variant.os +
                  ": the loader never selects a tagged variant off Linux; drop the tag");
  return variant;
}

}  // namespace kcheck
