#include "wedge_guard.h"

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

std::string DescribeWedge(const Plan& plan, int first_rank, const std::vector<RankProgress>& progress,
                          double deadline_s) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", deadline_s);
  std::string out = std::string("cuda backend: the rank threads did not return within ") + secs +
                    " s (`wedge_deadline_s`): a CUDA call never returned, so the GPU is wedged; ending the process.";
  for (size_t r = 0; r < progress.size(); ++r) {
    const RankProgress& at = progress[r];
    const int it = at.iteration.load(), step = at.step.load();
    const int rank_index = first_rank + int(r);
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
    out += (r == 0 ? " " : "; ") + rank + ": " + what;
  }
  return out;
}

double WedgeDeadline(const CudaBackendOptions& o, const RunOptions& run) {
  return o.wedge_deadline_s > 0 ? o.wedge_deadline_s : o.timeout_s * (run.warmup + run.iters + 4) + 120;
}

WedgeGuard::WedgeGuard(std::chrono::duration<double> deadline, std::function<std::string()> describe,
                       std::function<void(const std::string&)> on_wedged) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(deadline);
  thread_ = std::thread([this, until, describe = std::move(describe), on_wedged = std::move(on_wedged)] {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_until(lock, until, [this] { return disarmed_; })) return;
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
