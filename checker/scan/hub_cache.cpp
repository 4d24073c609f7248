#include "checker/scan/hub_cache.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "checker/support/bounded_read.h"

namespace kcheck {

namespace fs = std::filesystem;

namespace {

// Hub names: letters, digits, '-', '_', '.', not starting with '.' or '-'.
bool hub_name(std::string_view name) {
  if (name.empty() || name.size() > 96 || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool revision_name(std::string_view revision) {
  if (revision.empty() || revision.size() > 255 || revision.find("..") != std::string_view::npos ||
      revision.front() == '/' || revision.back() == '/')
    return false;
  return std::all_of(revision.begin(), revision.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

bool commit_hash(std::string_view text) {
  return text.size() == 40 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

// The repository's folder in one cache: a kernel repository's (what the
// `kernels` loader and `hf download --repo-type kernel` write), else a model
// repository's (kernels uploaded before the kernel type existed).
fs::path repository_folder(const fs::path& cache, const std::string& repo_id) {
  std::string name = repo_id;
  name.replace(name.find('/'), 1, "--");
  std::error_code error;
  for (const char* type : {"kernels--", "models--"})
    if (fs::is_directory(cache / (type + name), error)) return cache / (type + name);
  return cache / ("kernels--" + name);
}

// A file past the audit's size limit: only its size is judged, so a sparse
// file of that size stands for it (copying gigabytes the audit never reads
// would cost the disk and the time it bounds).
void copy_size_only(const fs::path& target, std::uintmax_t size) {
  if (!std::ofstream(target, std::ios::binary)) throw std::runtime_error("cannot write " + target.string());
  fs::resize_file(target, size);
}

}  // namespace

std::string download_command(const HubReference& reference) {
  return "hf download " + reference.repo_id + " --repo-type kernel" +
         (reference.revision == "main" ? "" : " --revision " + reference.revision);
}

std::optional<HubReference> parse_hub_reference(std::string_view text) {
  HubReference reference;
  const std::size_t at = text.find('@');
  if (at != std::string_view::npos) {
    reference.revision = std::string(text.substr(at + 1));
    text = text.substr(0, at);
    if (!revision_name(reference.revision)) return std::nullopt;
  }
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || !hub_name(text.substr(0, slash)) || !hub_name(text.substr(slash + 1)))
    return std::nullopt;
  reference.repo_id = std::string(text);
  return reference;
}

fs::path hub_cache_directory(const char* (*variable)(const char*)) {
  auto value = [&](const char* name) -> std::string {
    const char* set = variable(name);
    return set ? set : "";
  };
  if (const std::string kernels = value("KERNELS_CACHE"); !kernels.empty()) return kernels;
  if (const std::string cache = value("HF_HUB_CACHE"); !cache.empty()) return cache;
  if (const std::string home = value("HF_HOME"); !home.empty()) return fs::path(home) / "hub";
  if (const std::string xdg = value("XDG_CACHE_HOME"); !xdg.empty()) return fs::path(xdg) / "huggingface" / "hub";
  return fs::path(value("HOME")) / ".cache" / "huggingface" / "hub";
}

HubSnapshot find_hub_snapshot(const fs::path& cache, const HubReference& reference) {
  HubSnapshot found;
  found.repository = repository_folder(cache, reference.repo_id);
  std::error_code error;
  const std::string missing = reference.repo_id + "@" + reference.revision + " is not in the Hugging Face cache (" +
                              cache.string() + "); download it with `" + download_command(reference) +
                              "` (or pass a local path)";
  if (!fs::is_directory(found.repository, error)) {
    found.problem = missing;
    return found;
  }
  found.commit = reference.revision;
  if (!commit_hash(reference.revision)) {
    std::string problem;
    const std::optional<std::string> ref =
        read_inside_root(found.repository, found.repository / "refs" / reference.revision, 4096, problem);
    if (!ref) {
      found.problem = problem.empty() ? missing : "refs/" + reference.revision + " of the cache: " + problem;
      return found;
    }
    found.commit = *ref;
    while (!found.commit.empty() && std::isspace(static_cast<unsigned char>(found.commit.back())))
      found.commit.pop_back();
    if (!commit_hash(found.commit)) {
      found.problem = "refs/" + reference.revision + " in the cache does not hold a commit hash";
      return found;
    }
  }
  found.snapshot = found.repository / "snapshots" / found.commit;
  // A real directory of the cache, never a link that would mirror another tree.
  if (!fs::is_directory(fs::symlink_status(found.snapshot, error))) found.problem = missing;
  return found;
}

fs::path materialise_snapshot(const HubSnapshot& snapshot, const fs::path& into, const WalkLimits& limits) {
  std::error_code error;
  if (fs::exists(fs::symlink_status(into, error)))
    throw std::runtime_error(into.string() + " exists: a snapshot is copied into a directory of its own");
  fs::create_directories(into);
  const fs::path repository = fs::canonical(snapshot.repository);
  fs::recursive_directory_iterator walk(snapshot.snapshot, fs::directory_options::none, error);
  if (error) throw std::runtime_error("cannot read " + snapshot.snapshot.string() + ": " + error.message());
  std::size_t entries = 0;
  for (; walk != fs::recursive_directory_iterator(); walk.increment(error)) {
    if (error) throw std::runtime_error("cannot read " + snapshot.snapshot.string() + ": " + error.message());
    if (++entries > limits.max_entries)
      throw std::runtime_error(snapshot.snapshot.string() + " holds more than " + std::to_string(limits.max_entries) +
                               " entries (--max-files): not copied");
    if (static_cast<std::size_t>(walk.depth()) >= limits.max_depth)
      throw std::runtime_error(snapshot.snapshot.string() + " is deeper than " + std::to_string(limits.max_depth) +
                               " levels (--max-depth): not copied");
    const fs::path relative = walk->path().lexically_relative(snapshot.snapshot);
    const fs::path target = into / relative;
    const fs::file_status status = walk->symlink_status();
    if (fs::is_directory(status)) {
      fs::create_directories(target);
      continue;
    }
    std::error_code resolve_error;
    const fs::path resolved = fs::canonical(walk->path(), resolve_error);
    const bool in_repository = !resolve_error && is_inside(resolved, repository) && fs::is_regular_file(resolved);
    if (fs::is_symlink(status) && !in_repository) {
      fs::create_symlink(fs::read_symlink(walk->path()), target);  // the audit judges where it leads
      continue;
    }
    if (!in_repository) continue;  // a special file: nothing a download holds
    if (const std::uintmax_t size = fs::file_size(resolved); size > limits.max_file_size) {
      copy_size_only(target, size);
      continue;
    }
    fs::copy_file(resolved, target);  // not a hard link: the audit flags names shared outside a variant (KL007)
  }
  return into;
}

}  // namespace kcheck
