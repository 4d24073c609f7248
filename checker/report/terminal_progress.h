#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>

#include "checker/support/progress.h"

namespace kcheck {

// The progress indicator of a terminal: one line on `out` ("kcheck: 120 files
// scanned · 35.2 MB hashed · 2 variants run"), rewritten in place with '\r',
// drawn at the first event and then at most once per `interval`, and erased
// by finish(). The CLI uses it only when stderr is a terminal.
class TerminalProgress final : public ProgressSink {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  TerminalProgress(std::ostream& out, Clock clock, std::chrono::milliseconds interval = std::chrono::milliseconds(100));
  ~TerminalProgress() override;

  void advance(ProgressCounter counter, std::uint64_t amount) override;

  // Erases the line, so that what follows starts on a clean line. Idempotent.
  void finish();

  // The text of the line for the given counts.
  static std::string describe(std::uint64_t files, std::uint64_t bytes, std::uint64_t variants);

 private:
  void draw();  // with mutex_ held

  std::ostream& out_;
  Clock clock_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::uint64_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t variants_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
  std::size_t width_ = 0;  // of the line on screen, to erase it
};

}  // namespace kcheck
