#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kcheck {

// Number of worker threads for `requested` (0 = one per hardware thread),
// never more than there are items.
inline unsigned worker_count(unsigned requested, std::size_t items) {
  unsigned threads = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(items, 1)));
}

// Calls work(i) for every i in [0, count) on a bounded set of threads, each
// taking the next index from a shared counter. The first exception thrown by
// any call is rethrown after all threads have stopped.
template <typename Work>
void parallel_for(std::size_t count, unsigned requested_threads, Work&& work) {
  unsigned threads = worker_count(requested_threads, count);
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto run = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  pool.clear();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kcheck
