#pragma once
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

namespace kcheck {

// Thrown when an audit runs past its deadline; `kcheck scan` reports the
// repository as an error entry and goes on with the others.
class AuditTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// When an audit gives up (`kcheck scan --repo-timeout`). The budget is
// cooperative: it is checked between files, variants and rules, because a
// worker thread cannot be stopped from outside; what keeps each of those
// steps short is that every collection they build is bounded.
class AuditDeadline {
 public:
  using Clock = std::chrono::steady_clock;

  AuditDeadline() = default;  // never passes

  static AuditDeadline after(Clock::duration budget) { return after(budget, budget); }

  // What is `left` of a `budget` partly spent before (the message names the budget).
  static AuditDeadline after(Clock::duration left, Clock::duration budget) {
    AuditDeadline deadline;
    deadline.at_ = Clock::now() + left;
    deadline.budget_ = budget;
    return deadline;
  }

  bool passed() const { return at_ && Clock::now() >= *at_; }

  // Throws AuditTimeout once the deadline has passed.
  void check() const {
    if (!passed()) return;
    const auto seconds = std::chrono::duration<double>(budget_).count();
    throw AuditTimeout("the audit ran past its time budget of " + format_seconds(seconds) +
                       " s (--repo-timeout); not judged");
  }

 private:
  static std::string format_seconds(double seconds) {
    std::string text = std::to_string(seconds);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.ends_with('.')) text.pop_back();
    return text;
  }

  std::optional<Clock::time_point> at_;
  Clock::duration budget_{};
};

}  // namespace kcheck
