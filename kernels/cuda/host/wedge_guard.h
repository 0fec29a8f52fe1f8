// The last line of defence against a wedged GPU (CudaBackendOptions::
// wedge_deadline_s): a thread that waits for the rank threads with a
// deadline. A rank thread blocked inside a CUDA call can be neither woken nor
// joined, so when the deadline passes the guard hands one line describing
// every rank to `on_wedged`, which by default writes it to stderr and ends
// the process (exit code 1) without running destructors that would call
// into the wedged driver.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "braid/cuda_backend.h"
#include "braid/plan.h"
#include "rank_runner.h"

namespace braid::cuda {

// One line: the deadline passed, and what each rank's thread was doing
// (`progress[i]` is rank `first_rank + i`'s).
std::string DescribeWedge(const Plan& plan, int first_rank, const std::vector<RankProgress>& progress,
                          double deadline_s);

// CudaBackendOptions::wedge_deadline_s, or its default for this run.
double WedgeDeadline(const CudaBackendOptions& o, const RunOptions& run);

// Writes `line` and a newline to stderr, then std::_Exit(1).
[[noreturn]] void EndWedgedProcess(const std::string& line);

class WedgeGuard {
 public:
  // `describe` runs on the guard's thread once the deadline passes (the
  // caller is still blocked, so what it reads is alive).
  WedgeGuard(std::chrono::duration<double> deadline, std::function<std::string()> describe,
             std::function<void(const std::string&)> on_wedged = EndWedgedProcess);
  ~WedgeGuard();  // disarms, then joins the guard's thread
  WedgeGuard(const WedgeGuard&) = delete;
  WedgeGuard& operator=(const WedgeGuard&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool disarmed_ = false;
  std::thread thread_;
};

}  // namespace braid::cuda
