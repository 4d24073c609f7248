// kcheck_worker's sources, compiled into kcheck (cmake/embed.cmake) so that
// any install of kcheck, the wheel included, can build the worker against
// whichever Torch it is given (worker_build.h). Keys are paths relative to
// the source tree ("cli/kcheck_worker.cpp", "checker/harness/worker/..."),
// plus the nlohmann/json headers the worker includes under "include/" and
// their licence under "licenses/".
#pragma once
#include <vector>

#include "checker/support/embedded_files.h"

namespace kcheck {

const std::vector<EmbeddedFile>& worker_source_files();

}  // namespace kcheck
