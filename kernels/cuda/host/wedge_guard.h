// The last line of defence against a wedged GPU (CudaBackendOptions::
// wedge_deadline_s): a thread that waits for the rank threads with a
// deadline. A rank thread blocked inside a CUDA call can be neither woken nor
// joined, so when the deadline passes the guard hands one line describing
// every rank to `on_wedged`, which by default writes it to stderr and ends
// the process (exit code 1) without running destructors that would call
// into the wedged driver.
// It also polls `stalled`, which ends the process sooner: issuing a step
// never waits for the GPU, so a rank inside one issue call for longer than
// the watchdog's `timeout_s` is wedged already (on the H100, 2026-11-26, a
// loopback run sat in such a call with the 8 s watchdog silent for 40 s,
// and the whole-run deadline was 184 s away).
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

// One line when a rank has been in one call outside the watched waits
// (issuing a step, the tracer, priming its kernels, reading its outputs,
// releasing its buffers; setting up: 30 s at least) for longer than `stall_s` at `now_ns` (steady clock), naming
// it and what every rank is doing; empty when none has.
std::string DescribeStall(const Plan& plan, int first_rank, const std::vector<RankProgress>& progress, double stall_s,
                          int64_t now_ns);

// How long one issue call may take before DescribeStall calls it wedged:
// the watchdog's `timeout_s`, 1 s at least (the fakes' runs set 0.2 s, and a
// sanitizer's slowdown must not read as a wedge).
double StallLimit(const CudaBackendOptions& o);

// The steady clock in ns, as RankProgress::since_ns holds it.
int64_t SteadyNowNs();

// CudaBackendOptions::wedge_deadline_s, or its default for this run.
double WedgeDeadline(const CudaBackendOptions& o, const RunOptions& run);

// Writes `line` and a newline to stderr, then std::_Exit(1).
[[noreturn]] void EndWedgedProcess(const std::string& line);

class WedgeGuard {
 public:
  // `describe` runs on the guard's thread once the deadline passes (the
  // caller is still blocked, so what it reads is alive).
  // `stalled` (optional) is polled every `poll`; a non-empty line ends the
  // process as the deadline would.
  WedgeGuard(std::chrono::duration<double> deadline, std::function<std::string()> describe,
             std::function<void(const std::string&)> on_wedged = EndWedgedProcess,
             std::function<std::string()> stalled = nullptr,
             std::chrono::duration<double> poll = std::chrono::milliseconds(100));
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
