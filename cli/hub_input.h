#pragma once
// Hub ids on the command line (`kcheck check ORG/NAME[@REVISION]`, `kcheck
// scan`): their snapshots in the local Hugging Face cache, copied into a
// directory of this run's own.
#include <filesystem>
#include <optional>
#include <string>

#include "checker/scan/hub_cache.h"

namespace kcheck::cli {

// A command-line input that names no local path but a Hub repository, or nothing.
std::optional<HubReference> hub_reference(const std::string& input);

// Its snapshot in the local Hugging Face cache; refused (std::invalid_argument)
// with the command that downloads it when it is not there.
HubSnapshot hub_snapshot(const HubReference& reference);

// $XDG_CACHE_HOME/kcheck, else ~/.cache/kcheck; "" (no cache) when neither is set.
std::string default_cache_directory();

// A fresh directory of this run's own for copies of Hub snapshots, under
// kcheck's cache (beside the Hugging Face cache, usually one file system):
// concurrent runs never share one.
std::filesystem::path private_hub_directory();

// A directory removed with everything in it when it goes out of scope.
struct RemovedAtEnd {
  std::filesystem::path path;
  RemovedAtEnd() = default;
  RemovedAtEnd(const RemovedAtEnd&) = delete;
  RemovedAtEnd& operator=(const RemovedAtEnd&) = delete;
  ~RemovedAtEnd() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace kcheck::cli
