#pragma once
#include <cstdint>

namespace kcheck {

// What a long run counts as it goes, for a progress indicator.
enum class ProgressCounter { files_scanned, bytes_hashed, variants_run };

// Receives progress from the audit (files scanned, bytes hashed) and the
// harness (variants run). Called from worker threads: implementations
// synchronise. The library never draws anything; the CLI passes a sink that
// does, or none.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void advance(ProgressCounter counter, std::uint64_t amount) = 0;
};

// One line at each call site: nothing happens without a sink.
inline void report_progress(ProgressSink* sink, ProgressCounter counter, std::uint64_t amount = 1) {
  if (sink) sink->advance(counter, amount);
}

}  // namespace kcheck
