#pragma once
#include "checker/builder/kernel_source.h"
#include "checker/kinds/build_config_facts.h"

namespace kcheck {

// What `kcheck build` needs from a usable build.toml ([torch] kernels only).
// Throws BuildError when the file cannot be built from.
KernelSource kernel_source_from_config(const BuildConfigFacts& config);

}  // namespace kcheck
