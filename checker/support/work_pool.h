#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace kcheck {

// What a batch of work items is, for the pool's choice of the next item.
enum class WorkKind {
  // Items that submit batches of their own (a repository of a scan): taken
  // first, so that every repository's files are queued early.
  composite,
  // Items that do not (hashing or analysing one file): taken largest first
  // across every batch, so the long ones do not start last.
  leaf,
};

// One set of threads shared by everything an audit or a scan does in
// parallel: the repositories of a scan, and the files of every repository.
// A thread that waits for a leaf batch runs only that batch's items (what a
// repository spends stays its own, for --repo-timeout); a thread with
// nothing of its own (a worker between items, or the caller of a composite
// batch whose items are all taken) runs any leaf item, largest first, so no
// repository's files wait while a thread is free. Nesting cannot deadlock:
// a waiting thread never starts a composite item, and a leaf item may wait
// only on a leaf batch of its own (a large file's pieces, whose items never
// wait), so a scan nests at most three deep: repository, file, piece.
class WorkPool {
 public:
  // `threads` in all, the caller of run() counting as one (0: one per
  // hardware thread).
  explicit WorkPool(unsigned threads);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  unsigned threads() const { return threads_; }

  // Calls work(i) for every i in [0, costs.size()), largest cost first, on
  // the pool's threads and the calling one; returns when all have returned.
  // Items of equal cost start in index order (the pieces of a scan, which
  // the fat binary's walk follows, rely on it).
  // The first exception thrown by an item is rethrown here (the other items
  // still run).
  void run(WorkKind kind, std::span<const std::uint64_t> costs, const std::function<void(std::size_t)>& work);

 private:
  struct Batch;
  struct Item {
    Batch* batch = nullptr;
    std::size_t index = 0;
  };

  // Under mutex_: the next item for a thread waiting on `own` (nullptr: an
  // idle worker), or none.
  bool take(const Batch* own, Item& item);
  void execute(const Item& item);
  void worker_loop();

  unsigned threads_;
  std::mutex mutex_;
  std::condition_variable changed_;  // an item queued or finished, or stopping
  std::list<Batch*> batches_;        // with items not yet taken
  bool stopping_ = false;
  std::vector<std::jthread> workers_;
};

// A pool of `threads` (0: one per hardware thread) for a caller that was
// given none.
unsigned pool_threads(unsigned requested);

}  // namespace kcheck
