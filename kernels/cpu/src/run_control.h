// Shared state of one run's threads: which iteration each step last
// finished (so no reset is needed between iterations), and the abort path
// that wakes every waiter when a thread fails.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "braid/transport.h"

namespace braid::cpu {

class RunControl {
 public:
  RunControl(size_t steps, Transport* transport);

  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  // Blocks until step `idx` has finished iteration `iter`; false if the run aborted.
  bool WaitDone(size_t idx, int iter);
  void MarkDone(size_t idx, int iter);
  // Keeps the first failure's message, then wakes dep waiters and receivers.
  // Barrier participants leave by arrive_and_drop once they see aborted().
  void Fail(const std::string& message);
  std::string error() const;

 private:
  size_t steps_;
  std::unique_ptr<std::atomic<int>[]> done_;  // last finished iteration, −1 before any
  std::atomic<bool> aborted_{false};
  Transport* transport_;
  mutable std::mutex mu_;
  std::string error_;
};

}  // namespace braid::cpu
