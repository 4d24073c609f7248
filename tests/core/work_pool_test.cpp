#include "checker/support/work_pool.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kcheck {
namespace {

TEST(WorkPool, RunsEveryItemOnceAndReturnsWhenAllHaveReturned) {
  WorkPool pool(3);
  std::vector<std::uint64_t> costs(1000, 1);
  std::vector<std::atomic<int>> calls(costs.size());
  pool.run(WorkKind::leaf, costs, [&](std::size_t i) { ++calls[i]; });
  for (const auto& count : calls) EXPECT_EQ(count.load(), 1);
}

TEST(WorkPool, OneThreadRunsTheItemsLargestCostFirstOnTheCaller) {
  WorkPool pool(1);
  const std::vector<std::uint64_t> costs = {5, 50, 1, 50, 20};
  std::vector<std::size_t> order;
  std::set<std::thread::id> threads;
  pool.run(WorkKind::leaf, costs, [&](std::size_t i) {
    order.push_back(i);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 4, 0, 2}));  // ties keep their given order
  EXPECT_EQ(threads, (std::set<std::thread::id>{std::this_thread::get_id()}));
}

TEST(WorkPool, AnItemsExceptionReachesTheCallerAfterTheOtherItemsRan) {
  WorkPool pool(2);
  std::vector<std::uint64_t> costs(50, 1);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(WorkKind::leaf, costs,
                        [&](std::size_t i) {
                          ++ran;
                          if (i == 7) throw std::runtime_error("item 7");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50);
}

// A scan's shape: composite items (repositories) that each run a batch of
// leaf items (files). With two threads and one repository far larger than
// the other, the thread whose repository is done helps with the other's
// files instead of idling: both threads run files of the large repository.
TEST(WorkPool, AThreadWhoseOwnBatchIsDoneRunsTheFilesOfAnotherBatch) {
  WorkPool pool(2);
  std::mutex mutex;
  std::set<std::thread::id> large_repository_threads;
  std::atomic<bool> small_repository_done{false};
  const std::vector<std::uint64_t> repositories = {1, 1};
  pool.run(WorkKind::composite, repositories, [&](std::size_t repository) {
    if (repository == 1) {
      pool.run(WorkKind::leaf, std::vector<std::uint64_t>{1}, [](std::size_t) {});
      small_repository_done = true;
      return;
    }
    std::vector<std::uint64_t> files(64, 1);
    pool.run(WorkKind::leaf, files, [&](std::size_t) {
      // Every file waits until the small repository is done, so the
      // other thread is free while files remain.
      while (!small_repository_done) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mutex);
      large_repository_threads.insert(std::this_thread::get_id());
    });
  });
  EXPECT_EQ(large_repository_threads.size(), 2u);
}

// While a thread is inside a repository (a composite item), it runs only
// that repository's files: another repository's would count against its
// time budget. Free threads run any repository's files.
TEST(WorkPool, AThreadInsideARepositoryRunsOnlyThatRepositorysFiles) {
  WorkPool pool(3);
  std::mutex mutex;
  std::map<std::thread::id, std::size_t> inside;  // thread -> the repository it is auditing
  bool foreign = false;
  const std::vector<std::uint64_t> repositories(6, 1);
  pool.run(WorkKind::composite, repositories, [&](std::size_t repository) {
    {
      std::lock_guard lock(mutex);
      inside[std::this_thread::get_id()] = repository;
    }
    std::vector<std::uint64_t> files(40, 1);
    pool.run(WorkKind::leaf, files, [&](std::size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      std::lock_guard lock(mutex);
      const auto auditing = inside.find(std::this_thread::get_id());
      if (auditing != inside.end() && auditing->second != repository) foreign = true;
    });
    std::lock_guard lock(mutex);
    inside.erase(std::this_thread::get_id());
  });
  EXPECT_FALSE(foreign);
}

TEST(WorkPool, NestedBatchesOnEveryThreadFinish) {
  WorkPool pool(4);
  std::atomic<int> leaves{0};
  const std::vector<std::uint64_t> repositories(20, 1);
  pool.run(WorkKind::composite, repositories, [&](std::size_t) {
    std::vector<std::uint64_t> files(30, 3);
    pool.run(WorkKind::leaf, files, [&](std::size_t) { ++leaves; });
  });
  EXPECT_EQ(leaves.load(), 20 * 30);
}

TEST(WorkPool, AnEmptyBatchReturnsAtOnce) {
  WorkPool pool(2);
  bool called = false;
  pool.run(WorkKind::leaf, {}, [&](std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace kcheck
