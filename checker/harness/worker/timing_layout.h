// How many buffers kcheck_worker times an op on: input sets enough that
// consecutive calls read from beyond the last-level cache, and, where an
// output cannot stay in that cache anyway, several output blocks (placements)
// that consecutive calls write in turn. The eager form and the torch.compile
// helper's calls rotate their results through as many blocks
// (checker/harness/compile_baselines.py), so every contender's median spans
// the same number of placements.
//
// Why placements: where a large output lies in the device's memory moves a
// memory-bound kernel. On an H200 (issue #32, 2026-11-29) the same float32
// silu kernel at 16384 x 16384 ran 498.9-501.4 us into outputs at 16 fresh
// placements (bench/results/roofline-h200-2026-11-29f-probe54c.log), and in
// kcheck_worker into its one output 505.7 us against 501.7 with
// PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, twice each
// (roofline-h200-2026-11-29f-worker-placement.log); eager, its results in
// other blocks, did not move with it. Header-only: the worker and the tests
// include it.
#pragma once
#include <algorithm>
#include <cstdint>

namespace kcheck::worker {

inline constexpr int kMaxBufferSets = 64;
// Output blocks a call's large outputs rotate through (see above).
inline constexpr int kOutputPlacements = 4;
static_assert(kMaxBufferSets % kOutputPlacements == 0, "the most sets are whole rounds over the blocks");

struct TimingLayout {
  int buffer_sets = 1;        // input sets, each call the next (with its output block, below)
  int output_placements = 1;  // output blocks: set s writes block s % output_placements
};

// input_bytes and output_bytes: one call's inputs and outputs in all;
// memory_bytes: the device's memory (the CPU's: the machine's), 0 where
// unknown: then one output block. Extra placements only where the buffers
// they take, the outputs counted twice over for the eager form's results,
// stay under a quarter of it (the device's whole memory, not what is free:
// the quarter leaves the rest to the checks' tensors and a composite
// baseline's temporaries).
constexpr TimingLayout timing_layout(std::int64_t input_bytes, std::int64_t output_bytes,
                                     std::int64_t last_level_cache_bytes, std::int64_t memory_bytes) {
  TimingLayout layout;
  const std::int64_t per_call = input_bytes + 1;
  layout.buffer_sets = static_cast<int>(
      std::clamp<std::int64_t>((2 * last_level_cache_bytes + per_call - 1) / per_call, 1, kMaxBufferSets));
  // A whole number of rounds over the blocks: each block as many sets.
  const int rounded_sets = (layout.buffer_sets + kOutputPlacements - 1) / kOutputPlacements * kOutputPlacements;
  const bool out_of_cache = output_bytes > 2 * last_level_cache_bytes;
  const std::int64_t taken = rounded_sets * input_bytes + 2 * kOutputPlacements * output_bytes;
  if (out_of_cache && memory_bytes > 0 && taken <= memory_bytes / 4) {
    layout.output_placements = kOutputPlacements;
    layout.buffer_sets = rounded_sets;
  }
  return layout;
}

}  // namespace kcheck::worker
