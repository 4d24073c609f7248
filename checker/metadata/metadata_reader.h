#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "checker/facts/tree_facts.h"

namespace kcheck {

// What one metadata.json may make kcheck hold. Real files are a few KB (a
// digest of a thousand files is about 100 KB); the parsed document takes at
// most ~60 times the text, so a file at the byte bound stays well under
// 100 MB, and every bound reached is a KM002 error, not a silent cut.
inline constexpr std::uint64_t kMaxMetadataBytes = std::uint64_t{1} << 20;
inline constexpr int kMaxMetadataDepth = 32;                  // real files nest 4 levels
inline constexpr std::size_t kMaxMetadataListEntries = 1024;  // items kept of one array
inline constexpr std::size_t kMaxMetadataProblems = 256;      // schema problems and unknown keys listed

// Reads `<variant>/metadata.json` once and checks its shape against
// build-variants.md §4.2–4.7. Never throws: a missing file leaves `present`
// false, a syntax error fills `parse_error` with its line and column, and
// every schema problem lands in `schema_errors` with its JSON pointer.
MetadataFacts read_metadata_facts(const VariantFacts& variant);

// The same, from the file's text (what read_metadata_facts does after
// reading). `archs_required` says whether `backend.archs` must be present
// (compiled cuda and rocm variants).
MetadataFacts parse_metadata_text(std::string_view text, bool archs_required);

// `key` escaped as one JSON-pointer reference token (RFC 6901: ~ -> ~0, / -> ~1).
std::string json_pointer_token(std::string_view key);

// A CUDA capability as build-toml.md §5.7 writes it: `8.0`, `9.0a`, `12.0+PTX`.
bool is_cuda_capability(std::string_view arch);
// A ROCm gfx architecture: `gfx90a`, `gfx942`, `gfx1100`.
bool is_rocm_arch(std::string_view arch);

}  // namespace kcheck
