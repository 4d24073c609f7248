#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/policy.h"
#include "checker/support/version.h"

// Value grammars and fixed vocabularies of build.toml (build-toml.md §1, §5).
namespace kcheck::build_config {

// Backend names the parser accepts in `general.backends` and `stable-abi`.
std::span<const std::string_view> all_backends();
// Backends a `[kernel.<name>]` component may have (the compiled ones).
std::span<const std::string_view> component_backends();
// C++ `depends` values (§5.4).
std::span<const std::string_view> cpp_dependencies();
// The backend a C++ dependency conventionally pairs with ("" for torch).
std::string_view conventional_backend(std::string_view dependency);

bool contains(std::span<const std::string_view> list, std::string_view value);
std::string join(std::span<const std::string_view> list);  // "a, b, c"

// §5.1: trims, accepts digits (leading '+' tolerated) separated by dots,
// drops trailing zero components. Sets `why_not` when invalid.
std::optional<Version> parse_config_version(std::string_view text, std::string* why_not = nullptr);
// "2.11" yes; "3", "2.10.1" no (the CMake step splits major and minor).
bool is_major_minor(std::string_view text);

// §5.3 name pattern; `why_not` explains the four rules when it fails.
bool is_valid_kernel_name(std::string_view name, std::string* why_not = nullptr);
// §5.2 Git URL.
bool is_valid_git_url(std::string_view url, std::string* why_not = nullptr);
// §5.7 grammars.
bool is_valid_cuda_capability(std::string_view capability);
bool is_valid_rocm_arch(std::string_view arch);
// "9.0a+PTX" -> "9.0"; the capability without suffix letter and "+PTX".
std::string capability_base(std::string_view capability);

// The capabilities the CUDA toolkit `toolkit` compiles by default, as the
// policy lists them ("12.1+PTX" marks PTX); empty when no entry applies.
std::vector<std::string> toolkit_default_capabilities(const Version& toolkit,
                                                      const std::vector<CudaToolkitDefaults>& defaults);

// The capabilities (without "+PTX" and suffix letters) the CUDA toolkit
// `toolkit` compiles by default: the first entry of the policy's
// `defaults` (newest first) whose minimum the toolkit reaches.
std::vector<Version> toolkit_targets(const Version& toolkit, const std::vector<CudaToolkitDefaults>& defaults);

// The CUDA capabilities a component is compiled for (build-variants.md §5.1,
// the upstream builder's "loose intersection"): each target capability picks
// the highest capability the component lists at or below it with the same
// major version (an entry with +PTX may match across majors); an entry with
// an `a`/`f` suffix is kept when its base is a target (and takes that target's
// place); +PTX is kept where the component asked for it, never added.
// `targets` are plain capabilities ("8.0", "9.0"). Sorted by version; empty
// when nothing matches.
std::vector<std::string> intersect_cuda_capabilities(const std::vector<std::string>& listed,
                                                     const std::vector<std::string>& targets);

// "9.0a+PTX" -> "9.0a"; "8.0" -> "8.0".
std::string without_ptx(const std::string& capability);

// Whether a component listing `capabilities` compiles anything with the
// CUDA toolkit `toolkit`: the intersection above with the toolkit's default
// targets is not empty (malformed entries are left out).
bool capabilities_build_with_toolkit(const std::vector<std::string>& capabilities, const Version& toolkit,
                                     const std::vector<CudaToolkitDefaults>& defaults);

}  // namespace kcheck::build_config
