// Helpers shared by the cpu backend tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "backend_test_util.h"

namespace braid::testing {

inline Plan MustBuild(Op op, int64_t m, int64_t n, int64_t k, int p, Algorithm algo, int chunks = 1, int comm_lanes = 1,
                      std::vector<int> splits = {}, DType dtype = DType::kFp32) {
  OverlapConfig cfg = OverlapConfigOf(algo, chunks, comm_lanes);
  cfg.splits = std::move(splits);
  return MustBuildPlan({op, m, n, k, dtype, p}, cfg);
}

// Runs `fn` on another thread; a hang fails the test and ends the process
// (a stuck thread can be neither joined nor detached safely).
inline void WithWatchdog(std::chrono::seconds limit, const std::function<void()>& fn) {
  std::packaged_task<void()> task(fn);
  std::future<void> done = task.get_future();
  std::thread worker(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "watchdog: the test hung for %lld s\n", static_cast<long long>(limit.count()));
    std::_Exit(3);
  }
  worker.join();
  done.get();
}

// Runs fn(rank) on `ranks` threads and returns once all finished.
inline void OnRanks(int ranks, const std::function<void(int)>& fn) {
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) threads.emplace_back(fn, r);
  for (std::thread& t : threads) t.join();
}

}  // namespace braid::testing
