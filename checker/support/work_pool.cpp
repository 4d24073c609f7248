#include "checker/support/work_pool.h"

#include <algorithm>
#include <numeric>

namespace kcheck {

struct WorkPool::Batch {
  WorkKind kind;
  std::span<const std::uint64_t> costs;
  const std::function<void(std::size_t)>* work;
  std::vector<std::size_t> order;  // indices, largest cost first
  std::size_t next = 0;            // position in `order` of the next item to take
  std::size_t unfinished = 0;      // items taken or not that have not returned
  std::exception_ptr failure;

  bool has_queued() const { return next < order.size(); }
  std::uint64_t next_cost() const { return costs[order[next]]; }
};

unsigned pool_threads(unsigned requested) {
  return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

WorkPool::WorkPool(unsigned threads) : threads_(pool_threads(threads)) {
  for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

WorkPool::~WorkPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  workers_.clear();  // joins
}

bool WorkPool::take(const Batch* own, Item& item) {
  Batch* chosen = nullptr;
  if (own != nullptr && own->has_queued()) {
    chosen = const_cast<Batch*>(own);
  } else if (own != nullptr && own->kind == WorkKind::leaf) {
    // Waiting inside a repository's batch: another repository's file would
    // be charged to this one's time budget (--repo-timeout). Idle threads,
    // and the caller of the outermost batch, help instead.
    return false;
  } else {
    for (Batch* batch : batches_) {
      if (batch->kind == WorkKind::composite) {
        // Only an idle worker starts a composite item; the first queued wins.
        if (own == nullptr && (chosen == nullptr || chosen->kind != WorkKind::composite)) chosen = batch;
      } else if (chosen == nullptr || (chosen->kind == WorkKind::leaf && batch->next_cost() > chosen->next_cost())) {
        chosen = batch;
      }
    }
  }
  if (chosen == nullptr) return false;
  item = Item{chosen, chosen->order[chosen->next++]};
  if (!chosen->has_queued()) batches_.remove(chosen);
  return true;
}

void WorkPool::execute(const Item& item) {
  std::exception_ptr failure;
  try {
    (*item.batch->work)(item.index);
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    if (failure && !item.batch->failure) item.batch->failure = failure;
    --item.batch->unfinished;
  }
  changed_.notify_all();
}

void WorkPool::worker_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    Item item;
    if (!take(nullptr, item)) {
      changed_.wait(lock);
      continue;
    }
    lock.unlock();
    execute(item);
    lock.lock();
  }
}

void WorkPool::run(WorkKind kind, std::span<const std::uint64_t> costs, const std::function<void(std::size_t)>& work) {
  if (costs.empty()) return;
  Batch batch{kind, costs, &work, std::vector<std::size_t>(costs.size())};
  std::iota(batch.order.begin(), batch.order.end(), std::size_t{0});
  std::stable_sort(batch.order.begin(), batch.order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  batch.unfinished = costs.size();
  std::unique_lock lock(mutex_);
  batches_.push_back(&batch);
  changed_.notify_all();
  while (batch.unfinished > 0) {
    Item item;
    if (!take(&batch, item)) {
      changed_.wait(lock);
      continue;
    }
    lock.unlock();
    execute(item);
    lock.lock();
  }
  lock.unlock();
  if (batch.failure) std::rethrow_exception(batch.failure);
}

}  // namespace kcheck
