#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "checker/support/walk_limits.h"

namespace kcheck {

// A Hub repository named on the command line: `ORG/NAME` or `ORG/NAME@REVISION`
// (a branch such as `main` or `v1`, a tag, or a commit hash).
struct HubReference {
  std::string repo_id;            // "kernels-community/activation"
  std::string revision = "main";  // as given
};
std::optional<HubReference> parse_hub_reference(std::string_view text);

// The command that downloads the whole repository's revision into the cache
// (huggingface_hub's CLI): `hf download ORG/NAME --repo-type kernel`.
std::string download_command(const HubReference& reference);

// The cache the `kernels` loader downloads into: $KERNELS_CACHE, else the
// Hugging Face cache as huggingface_hub finds it ($HF_HUB_CACHE, else
// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub). `variable` reads the environment.
std::filesystem::path hub_cache_directory(const char* (*variable)(const char*));

// The snapshot of a repository's revision in that cache (the layout `hf
// download --repo-type kernel` and the `kernels` loader write:
// kernels--ORG--NAME (or models--ORG--NAME for a kernel uploaded as a model)
// with refs/<branch> holding the commit and snapshots/<commit>/ holding links
// into blobs/). The problem says why there is none, with the command that
// downloads it.
struct HubSnapshot {
  std::filesystem::path repository;  // <cache>/kernels--ORG--NAME
  std::filesystem::path snapshot;    // <repository>/snapshots/<commit>
  std::string commit;
  std::string problem;
};
HubSnapshot find_hub_snapshot(const std::filesystem::path& cache, const HubReference& reference);

// The snapshot as a plain tree under `into` (which must not exist: each run
// copies into a directory of its own; each file a copy of its blob), so the audit reads its files as a download holds
// them: a link of the snapshot that leads outside the repository's folder of the cache stays a link (and the audit
// reports it). Within the audit's own limits: a file larger than `limits.max_file_size` is copied as a sparse file of
// its size (the audit reports it by its size and never reads it); a snapshot deeper than `max_depth` or with more than
// `max_entries` entries is refused. Returns `into`; throws std::filesystem::filesystem_error or std::runtime_error
// naming what failed.
std::filesystem::path materialise_snapshot(const HubSnapshot& snapshot, const std::filesystem::path& into,
                                           const WalkLimits& limits = {});

}  // namespace kcheck
