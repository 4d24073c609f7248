#include "checker/scan/repositories.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <stdexcept>

#include "checker/layout/tree_walker.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

bool is_repository(const fs::path& directory) {
  std::error_code error;
  return fs::is_directory(directory / "build", error);
}

// "owner/relu@v2" -> {"owner/relu", "v2"}; "relu" -> {"relu", ""}. Only the
// repository directory's own name carries a revision: "a@b/relu" is the id
// "a@b/relu" (a revision never holds a '/').
std::pair<std::string, std::string> split_revision(const std::string& name) {
  const std::size_t slash = name.rfind('/');
  const std::size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t at = name.rfind('@');
  if (at == std::string::npos || at <= name_start || at + 1 == name.size()) return {name, ""};
  return {name.substr(0, at), name.substr(at + 1)};
}

RepositoryInput make_input(const fs::path& directory, std::string relative_name) {
  auto [id, revision] = split_revision(relative_name);
  return {std::move(id), std::move(revision), directory};
}

void find_below(const fs::path& root, const fs::path& directory, int depth_left, std::vector<RepositoryInput>& found) {
  if (depth_left <= 0) return;
  std::error_code error;
  std::vector<fs::path> children;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || entry.is_symlink(error) || !entry.is_directory(error)) continue;
    children.push_back(entry.path());
  }
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) {
    if (is_repository(child))
      found.push_back(make_input(child, child.lexically_relative(root).generic_string()));
    else
      find_below(root, child, depth_left - 1, found);
  }
}

}  // namespace

std::vector<RepositoryInput> discover_repositories(const std::vector<fs::path>& roots, int max_depth) {
  std::vector<RepositoryInput> found;
  for (const fs::path& given : roots) {
    std::error_code error;
    if (!fs::is_directory(given, error)) throw InputError("not a directory: " + given.string());
    const fs::path root = fs::absolute(given).lexically_normal();
    const fs::path named = root.has_filename() ? root : root.parent_path();
    if (is_repository(root))
      found.push_back(make_input(root, named.filename().string()));
    else
      find_below(root, root, max_depth, found);
  }
  std::sort(found.begin(), found.end(), [](const RepositoryInput& a, const RepositoryInput& b) {
    return std::tie(a.id, a.revision) < std::tie(b.id, b.revision);
  });
  for (std::size_t i = 1; i < found.size(); ++i) {
    if (found[i].id == found[i - 1].id && found[i].revision == found[i - 1].revision)
      throw std::invalid_argument("repository " + found[i].id +
                                  (found[i].revision.empty() ? "" : "@" + found[i].revision) +
                                  " found twice: " + found[i - 1].path.string() + " and " + found[i].path.string());
  }
  return found;
}

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  auto number = [&](std::string_view digits, unsigned& value) {
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  };
  Shard shard;
  const std::string_view view(text);
  if (slash == std::string::npos || !number(view.substr(0, slash), shard.index) ||
      !number(view.substr(slash + 1), shard.count))
    throw std::invalid_argument("--shard takes INDEX/COUNT, e.g. 0/4, not '" + text + "'");
  if (shard.count == 0 || shard.index >= shard.count)
    throw std::invalid_argument("--shard " + text + ": the index counts from 0 and must be below the count");
  return shard;
}

unsigned shard_of(const std::string& repository_id, unsigned shard_count) {
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (unsigned char byte : repository_id) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  return static_cast<unsigned>(hash % shard_count);
}

std::vector<RepositoryInput> select_shard(const std::vector<RepositoryInput>& repositories, const Shard& shard) {
  std::vector<RepositoryInput> selected;
  for (const RepositoryInput& repository : repositories)
    if (shard_of(repository.id, shard.count) == shard.index) selected.push_back(repository);
  return selected;
}

}  // namespace kcheck
