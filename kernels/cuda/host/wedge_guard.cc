#include "wedge_guard.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace braid::cuda {

void EndWedgedProcess(const std::string& line) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

namespace {

// What one rank's thread is doing, e.g. "rank 1: issuing step 3 'gemm' in iteration 0".
std::string DescribeRank(const Plan& plan, int rank_index, const RankProgress& at) {
  const int it = at.iteration.load(), step = at.step.load();
  const std::string rank = "rank " + std::to_string(rank_index);
  const std::string iteration = it < 0 ? "" : " in iteration " + std::to_string(it);
  std::string what;
  switch (at.phase.load()) {
    case RankProgress::kSetUp:
      what = "setting up";
      break;
    case RankProgress::kPriming:
      what = "loading its kernels";
      break;
    case RankProgress::kIssuing: {
      const auto& steps = plan.ranks[size_t(rank_index)].steps;
      const std::string name = step >= 0 && size_t(step) < steps.size() ? " '" + steps[size_t(step)].name + "'" : "";
      what = "issuing step " + std::to_string(step) + name + iteration;
      break;
    }
    case RankProgress::kWaiting:
      what = "waiting for its streams" + iteration;
      break;
    case RankProgress::kBarrier:
      what = "at a barrier" + iteration;
      break;
    case RankProgress::kTracing:
      what = "starting or stopping the tracer" + iteration;
      break;
    case RankProgress::kReading:
      what = "reading its outputs back";
      break;
    case RankProgress::kTearDown:
      what = "releasing its buffers";
      break;
    default:
      what = "done";
      break;
  }
  const std::string failure = at.failure();
  return rank + ": " + what + (failure.empty() ? "" : " (it failed: " + failure + ")");
}

std::string DescribeRanks(const Plan& plan, int first_rank, const std::vector<RankProgress>& progress) {
  std::string out;
  for (size_t r = 0; r < progress.size(); ++r) {
    out += (r == 0 ? " " : "; ") + DescribeRank(plan, first_rank + int(r), progress[r]);
  }
  return out;
}

std::string Seconds(double s) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", s);
  return secs;
}

}  // namespace

std::string DescribeWedge(const Plan& plan, int first_rank, const std::vector<RankProgress>& progress,
                          double deadline_s) {
  return "cuda backend: the rank threads did not return within " + Seconds(deadline_s) +
         " s (`wedge_deadline_s`): a CUDA call never returned, so the GPU is wedged; ending the process." +
         DescribeRanks(plan, first_rank, progress);
}

std::string DescribeStall(const Plan& plan, int first_rank, const std::vector<RankProgress>& progress, double stall_s,
                          int64_t now_ns) {
  const auto limit_ns = int64_t(stall_s * 1e9);
  for (size_t r = 0; r < progress.size(); ++r) {
    const RankProgress& at = progress[r];
    const int phase = at.phase.load();
    // Waiting for the streams has the watchdog and barriers have the group's
    // timeout; every other phase makes calls that never wait for another
    // rank. Setting up may join an NCCL communicator, which waits for the
    // other processes: it gets 30 s at least.
    if (phase == RankProgress::kWaiting || phase == RankProgress::kBarrier || phase == RankProgress::kDone) continue;
    const int64_t since = at.since_ns.load();
    const int64_t limit = phase == RankProgress::kSetUp ? std::max<int64_t>(limit_ns, int64_t(30e9)) : limit_ns;
    if (since <= 0 || now_ns - since <= limit) continue;
    return "cuda backend: " + DescribeRank(plan, first_rank + int(r), at) + " for more than " +
           Seconds(double(limit) / 1e9) +
           " s (`timeout_s`, 1 s at least): a CUDA call never returned, so the GPU is wedged; ending the process." +
           DescribeRanks(plan, first_rank, progress);
  }
  return "";
}

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double StallLimit(const CudaBackendOptions& o) { return std::max(o.timeout_s, 1.0); }

double WedgeDeadline(const CudaBackendOptions& o, const RunOptions& run) {
  return o.wedge_deadline_s > 0 ? o.wedge_deadline_s : o.timeout_s * (run.warmup + run.iters + 4) + 120;
}

WedgeGuard::WedgeGuard(std::chrono::duration<double> deadline, std::function<std::string()> describe,
                       std::function<void(const std::string&)> on_wedged, std::function<std::string()> stalled,
                       std::chrono::duration<double> poll) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(deadline);
  const auto step = std::chrono::duration_cast<std::chrono::nanoseconds>(poll);
  thread_ = std::thread([this, until, step, describe = std::move(describe), on_wedged = std::move(on_wedged),
                         stalled = std::move(stalled)] {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      const auto wake = stalled ? std::min(until, Clock::now() + step) : until;
      if (cv_.wait_until(lock, wake, [this] { return disarmed_; })) return;
      if (Clock::now() >= until) break;
      lock.unlock();
      std::string line = stalled();
      if (!line.empty()) {
        on_wedged(line);
        return;
      }
      lock.lock();
    }
    lock.unlock();
    on_wedged(describe());
  });
}

WedgeGuard::~WedgeGuard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    disarmed_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace braid::cuda
