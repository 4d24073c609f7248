#include "checker/layout/tree_walker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <utility>

#include "checker/support/bounded_read.h"
#include "checker/support/text_scan.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

std::string size_bound_problem(std::uint64_t size, const WalkLimits& limits) {
  if (size <= limits.max_file_size) return "";
  return std::to_string(size) + " bytes, above the size bound of " + std::to_string(limits.max_file_size) +
         " bytes (--max-file-size); not read";
}

// Opens a regular file without reading it: an unreadable file is reported
// here, once, rather than by each analyser that would fail on it.
std::string open_problem(const fs::path& path) {
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (descriptor < 0) return std::string("cannot read: ") + std::strerror(errno);
  ::close(descriptor);
  return "";
}

void describe_symlink(FileEntry& entry, const fs::path& canonical_root, const WalkLimits& limits) {
  std::error_code error;
  entry.link_target = fs::read_symlink(entry.path, error).string();
  fs::path resolved = fs::canonical(entry.path, error);
  if (error) {
    if (error == std::errc::too_many_symbolic_link_levels)
      entry.link_loops = true;
    else {
      // Dangling: judge the lexical target instead.
      fs::path lexical = (entry.path.parent_path() / entry.link_target).lexically_normal();
      entry.link_escapes_variant = !is_inside(lexical, canonical_root);
    }
    return;
  }
  entry.link_escapes_variant = !is_inside(resolved, canonical_root);
  entry.link_target_is_directory = fs::is_directory(resolved, error);
  // A link inside the variant is read through: the bound holds for its target too.
  struct stat target {};
  if (!entry.link_escapes_variant && ::stat(resolved.c_str(), &target) == 0 && S_ISREG(target.st_mode))
    entry.read_error = size_bound_problem(static_cast<std::uint64_t>(target.st_size), limits);
}

FileEntry inspect(const fs::path& path, const fs::path& variant_root, const fs::path& canonical_root,
                  const WalkLimits& limits) {
  FileEntry entry;
  entry.path = path;
  std::string relative = path.lexically_relative(variant_root).generic_string();
  entry.relative_path = relative;
  entry.valid_utf8 = !text::first_invalid_utf8(relative);
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    entry.kind = FileKind::other;
    entry.read_error = "cannot stat";
    return entry;
  }
  entry.size = static_cast<std::uint64_t>(info.st_size);
  entry.hard_links = static_cast<std::uint64_t>(info.st_nlink);
  if (S_ISREG(info.st_mode))
    entry.kind = FileKind::regular;
  else if (S_ISDIR(info.st_mode))
    entry.kind = FileKind::directory;
  else if (S_ISLNK(info.st_mode))
    entry.kind = FileKind::symlink;
  else
    entry.kind = FileKind::other;
  if (entry.kind == FileKind::symlink) describe_symlink(entry, canonical_root, limits);
  if (entry.kind == FileKind::regular) {
    entry.read_error = size_bound_problem(entry.size, limits);
    if (entry.read_error.empty()) entry.read_error = open_problem(path);
  }
  return entry;
}

// Marks regular files that have more hard links than names inside the variant.
void mark_outside_hard_links(std::vector<FileEntry>& files) {
  std::map<std::pair<dev_t, ino_t>, std::vector<FileEntry*>> by_inode;
  for (FileEntry& entry : files) {
    if (entry.kind != FileKind::regular || entry.hard_links < 2) continue;
    struct stat info {};
    if (::lstat(entry.path.c_str(), &info) == 0) by_inode[{info.st_dev, info.st_ino}].push_back(&entry);
  }
  for (auto& [_, names] : by_inode)
    for (FileEntry* entry : names) entry->hard_link_outside_variant = names.size() < entry->hard_links;
}

bool looks_like_variant(const fs::path& directory) {
  std::error_code error;
  if (parse_variant_name(directory.filename().string())) return true;
  for (const char* marker : {"metadata.json", "__init__.py", "_ops.py"})
    if (fs::exists(directory / marker, error)) return true;
  return false;
}

bool looks_like_build_dir(const fs::path& directory) {
  if (directory.filename() == "build") return true;
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
    if (it->is_directory(error) && parse_variant_name(it->path().filename().string())) return true;
  return false;
}

// Directories in build/ that are not variants (build-variants.md §3.1).
bool is_variant_candidate(const fs::directory_entry& entry) {
  std::error_code error;
  return entry.is_directory(error) && !entry.is_symlink(error) && entry.path().filename() != "benchmarks";
}

bool is_listable(const fs::path& directory) {
  std::error_code error;
  fs::directory_iterator probe(directory, error);
  return !error;
}

VariantFacts make_variant(const fs::path& directory, const fs::path& audited_root, const WalkLimits& limits) {
  VariantFacts variant;
  variant.directory_name = directory.filename().string();
  variant.path = directory;
  variant.relative_path = directory == audited_root ? "" : directory.lexically_relative(audited_root).generic_string();
  variant.name = parse_variant_name(variant.directory_name, &variant.name_error);
  variant.files = walk_variant(directory, limits);
  variant.listed = is_listable(directory);
  return variant;
}

fs::path absolute_normal(const fs::path& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  return (error ? path : absolute).lexically_normal();
}

}  // namespace

std::vector<FileEntry> walk_variant(const fs::path& variant_root, const WalkLimits& limits) {
  std::vector<FileEntry> files;
  std::error_code error;
  fs::path canonical_root = fs::canonical(variant_root, error);
  if (error) canonical_root = variant_root;
  std::vector<std::pair<fs::path, std::size_t>> pending{{variant_root, 0}};
  bool truncated = false;
  while (!pending.empty() && files.size() < limits.max_entries) {
    auto [directory, depth] = pending.back();
    pending.pop_back();
    fs::directory_iterator it(directory, error);
    if (error) {
      FileEntry unreadable = inspect(directory, variant_root, canonical_root, limits);
      unreadable.read_error = "cannot list directory: " + error.message();
      if (directory == variant_root) unreadable.relative_path = ".";  // the variant itself (KL007), as for --max-files
      files.push_back(std::move(unreadable));
      continue;
    }
    for (fs::directory_iterator end; it != end && files.size() < limits.max_entries; it.increment(error)) {
      if (error) break;
      FileEntry entry = inspect(it->path(), variant_root, canonical_root, limits);
      if (entry.kind == FileKind::directory) {
        if (depth + 1 < limits.max_depth)
          pending.emplace_back(it->path(), depth + 1);
        else
          entry.read_error = "nested deeper than " + std::to_string(limits.max_depth) + " levels; not walked";
      }
      files.push_back(std::move(entry));
    }
    truncated = truncated || (!error && it != fs::directory_iterator());
  }
  if (truncated || !pending.empty()) {
    // The count bound stopped the walk: say so once, on the variant itself.
    FileEntry stopped = inspect(variant_root, variant_root, canonical_root, limits);
    stopped.relative_path = ".";
    stopped.read_error = "more than " + std::to_string(limits.max_entries) +
                         " entries in the variant (--max-files); the rest is not walked";
    files.push_back(std::move(stopped));
  }
  std::sort(files.begin(), files.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.relative_path < b.relative_path; });
  mark_outside_hard_links(files);
  return files;
}

TreeFacts discover_tree(const fs::path& input, const WalkLimits& limits) {
  TreeFacts tree;
  fs::path path = absolute_normal(input);
  if (!path.has_filename()) path = path.parent_path();  // "x/build/" -> "x/build"
  std::error_code error;
  fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status)) throw InputError("path does not exist: " + input.string());

  if (fs::is_regular_file(status)) {
    tree.scope = AuditScope::module;
    tree.audited_root = path.parent_path();
    VariantFacts module_only;
    module_only.path = path.parent_path();
    FileEntry entry = inspect(path, path.parent_path(), path.parent_path(), limits);
    module_only.files.push_back(std::move(entry));
    tree.variants.push_back(std::move(module_only));
    return tree;
  }
  if (!fs::is_directory(status)) throw InputError("not a file or directory: " + input.string());
  fs::directory_iterator probe(path, error);
  if (error) throw InputError("cannot read directory " + input.string() + ": " + error.message());

  if (fs::is_directory(path / "build", error) && !fs::is_symlink(path / "build", error)) {
    tree.audited_root = path;
    tree.build_dir = path / "build";
  } else if (looks_like_variant(path)) {
    tree.scope = AuditScope::variant;
    tree.audited_root = path;
    tree.variants.push_back(make_variant(path, path, limits));
    return tree;
  } else if (looks_like_build_dir(path)) {
    tree.audited_root = path.parent_path();
    tree.build_dir = path;
  } else {
    tree.audited_root = path;
    return tree;  // no build/ directory: KL001
  }

  tree.build_dir_exists = true;
  std::vector<fs::path> variant_dirs;
  for (fs::directory_iterator it(tree.build_dir, error), end; !error && it != end; it.increment(error))
    if (is_variant_candidate(*it)) variant_dirs.push_back(it->path());
  std::sort(variant_dirs.begin(), variant_dirs.end());
  for (const fs::path& directory : variant_dirs)
    tree.variants.push_back(make_variant(directory, tree.audited_root, limits));
  return tree;
}

}  // namespace kcheck
