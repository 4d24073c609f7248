#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kcheck {

// One kernel repository (a directory holding build/) found under a scan root.
// A directory named `<name>@<revision>` is that revision of repository
// `<name>`; the revisions of one id are checked against each other (KO005).
struct RepositoryInput {
  std::string id;        // path below the root ('/' separators) without the @revision; the root's name for a root
  std::string revision;  // "" when the directory name carries none
  std::filesystem::path path;
};

// Repositories under each root (a root that holds build/ is one itself),
// looked for at most `max_depth` directories down, never inside a repository
// or a hidden directory; sorted by id, then revision. Throws InputError for a
// root that is not a directory, and std::invalid_argument when two
// directories give the same id and revision.
std::vector<RepositoryInput> discover_repositories(const std::vector<std::filesystem::path>& roots, int max_depth = 4);

// `--shard i/n`: the i-th of n parts (0 <= i < n), so an array job's index
// can be passed as it is (Kubernetes JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID
// with --array=0-(n-1)).
struct Shard {
  unsigned index = 0;
  unsigned count = 1;
  friend bool operator==(const Shard&, const Shard&) = default;
};

// Parses "i/n"; throws std::invalid_argument naming what is wrong.
Shard parse_shard(const std::string& text);

// The shard a repository belongs to: a hash of its id alone (FNV-1a), so the
// answer does not depend on the other repositories, the machine or the order
// of the roots, and every revision of one id lands in the same shard.
unsigned shard_of(const std::string& repository_id, unsigned shard_count);

std::vector<RepositoryInput> select_shard(const std::vector<RepositoryInput>& repositories, const Shard& shard);

}  // namespace kcheck
