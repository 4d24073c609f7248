#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace kcheck {

// Text files kcheck parses whole (metadata.json, build.toml, Python sources,
// policies) are far below this; a larger one is refused, not read into memory.
inline constexpr std::uint64_t kMaxParsedFileBytes = 16u << 20;

// Reads a whole regular file of at most `max_bytes` bytes. Never blocks on a
// FIFO or device (it is opened non-blocking and refused after fstat) and never
// reads more than `max_bytes`, whatever the file claims or grows to. On failure
// returns nullopt and sets `error` ("not a regular file", "... bytes, above the
// bound of ...", "cannot open: ...").
std::optional<std::string> read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes,
                                             std::string& error);

// Whether `path` is `root` or below it, by whole path components, as written
// (the caller resolves links first where they matter): "/a/bc" is not inside "/a/b".
bool is_inside(const std::filesystem::path& path, const std::filesystem::path& root);

// A file of a repository as every file of an upload is read: inside `root`
// however it is named or linked, a regular file, never more read than
// `max_bytes`. nullopt with `problem` empty when there is no such file; with
// `problem` saying why otherwise ("a link that leaves the repository; not read").
std::optional<std::string> read_inside_root(const std::filesystem::path& root, const std::filesystem::path& path,
                                            std::uint64_t max_bytes, std::string& problem);

}  // namespace kcheck
