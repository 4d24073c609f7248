// The one PATH walker: where a program named on a command line is.
#pragma once
#include <filesystem>
#include <string_view>

namespace kcheck {

// `name` as an executable: a name holding a '/' is taken as a path (returned
// absolute when it can be executed); a bare name is looked up in the
// directories of `path_variable` ($PATH's value; unset: /usr/bin:/bin), in order. Only absolute
// directories are searched: an empty or relative entry, which a shell reads
// as the current directory, is skipped, so a program is never picked up from
// wherever kcheck happens to run (a kernel repository). Empty when not found.
std::filesystem::path find_executable(std::string_view name, const char* path_variable);

}  // namespace kcheck
