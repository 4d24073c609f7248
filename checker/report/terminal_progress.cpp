#include "checker/report/terminal_progress.h"

#include "checker/report/report_view.h"

namespace kcheck {

namespace {

std::string byte_count(std::uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  return (unit == 0 ? std::to_string(bytes) : format_number(value, 1)) + " " + kUnits[unit];
}

// Characters as a terminal counts them (UTF-8 continuation bytes take no column).
std::size_t columns(const std::string& text) {
  std::size_t count = 0;
  for (unsigned char c : text) count += (c & 0xC0) != 0x80;
  return count;
}

}  // namespace

TerminalProgress::TerminalProgress(std::ostream& out, Clock clock, std::chrono::milliseconds interval)
    : out_(out), clock_(std::move(clock)), interval_(interval) {}

TerminalProgress::~TerminalProgress() { finish(); }

std::string TerminalProgress::describe(std::uint64_t files, std::uint64_t bytes, std::uint64_t variants) {
  std::string line = "kcheck: " + std::to_string(files) + (files == 1 ? " file" : " files") + " scanned · " +
                     byte_count(bytes) + " hashed";
  if (variants) line += " · " + std::to_string(variants) + (variants == 1 ? " variant" : " variants") + " run";
  return line;
}

void TerminalProgress::advance(ProgressCounter counter, std::uint64_t amount) {
  std::lock_guard lock(mutex_);
  switch (counter) {
    case ProgressCounter::files_scanned:
      files_ += amount;
      break;
    case ProgressCounter::bytes_hashed:
      bytes_ += amount;
      break;
    case ProgressCounter::variants_run:
      variants_ += amount;
      break;
  }
  auto now = clock_();
  if (drawn_ && now - last_draw_ < interval_) return;
  last_draw_ = now;
  draw();
}

void TerminalProgress::draw() {
  std::string line = describe(files_, bytes_, variants_);
  std::size_t width = columns(line);
  // Pad over a longer previous line.
  out_ << '\r' << line << std::string(width_ > width ? width_ - width : 0, ' ') << std::flush;
  width_ = std::max(width_, width);
  drawn_ = true;
}

void TerminalProgress::finish() {
  std::lock_guard lock(mutex_);
  if (!drawn_ || width_ == 0) return;
  out_ << '\r' << std::string(width_, ' ') << '\r' << std::flush;
  width_ = 0;
}

}  // namespace kcheck
