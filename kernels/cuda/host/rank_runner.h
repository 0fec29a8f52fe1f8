// The body of one rank's thread: set up its device (buffers, streams,
// events, communicator or peer inboxes), issue every iteration's steps,
// wait for them under the watchdog, read the outputs back, tear down.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "braid/cuda_backend.h"
#include "braid/cuda_step_events.h"
#include "braid/host_matrix.h"
#include "rank_state.h"

namespace braid::cuda {

// Where a rank's thread is, for the wedge guard's message (cuda_backend.h,
// `wedge_deadline_s`). Written by the rank's thread, read by the guard.
struct RankProgress {
  enum Phase : int { kSetUp, kPriming, kIssuing, kWaiting, kBarrier, kReading, kTearDown, kDone, kTracing };
  std::atomic<int> phase{kSetUp};
  std::atomic<int> iteration{-1};
  std::atomic<int> step{-1};         // kIssuing: the step being issued
  std::atomic<int64_t> since_ns{0};  // steady clock: when phase or step last changed

  // Why the rank failed, set before it tears down: a tear-down that then
  // hangs (cudaFree waits for the device) would otherwise take the message
  // with it, since the rank's result is returned only after tear-down.
  void SetFailure(const std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    failure_ = message;
  }
  std::string failure() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
  }

 private:
  mutable std::mutex mu_;
  std::string failure_;
};

struct RankJob {
  const Plan* plan = nullptr;
  int rank = 0;
  int device = 0;
  Transport transport = Transport::kNone;
  const std::vector<TransferLayout>* layouts = nullptr;
  const std::vector<HostMatrix>* a = nullptr;  // per op, already rounded to the dtype
  const std::vector<HostMatrix>* b = nullptr;
  const CudaSeams* seams = nullptr;
  Bootstrap* boot = nullptr;
  const RunOptions* run = nullptr;
  const CudaBackendOptions* options = nullptr;
  // Per op (Plan::op_knobs; one for a single-op plan): its GEMMs' cuBLASLt
  // SM count target, 0 = every SM (op_knobs.h SmCountTargets).
  std::vector<int> sm_count_targets;
  int comm_sms = 0;
  std::atomic<bool>* failed = nullptr;  // set by the first rank that fails
  int fused_sms_per_rank = 0;           // fused steps: SMs one rank's kernel may hold
  // Starts and stops the tracer (one per process: rank 0's thread, or the
  // process's only rank under mpirun).
  bool owns_tracer = false;
  RankProgress* progress = nullptr;  // optional
  // FP8: per-tensor quantization scales, index 2·op (A) and 2·op + 1 (B)
  // (MakeInputs); null for other dtypes.
  const std::vector<float>* scales = nullptr;
};

struct RankResult {
  Status status;
  std::vector<std::vector<float>> outputs;    // RankPlan::Outputs() order, fp32
  std::vector<int64_t> iteration_ns;          // rank 0 only: wall time per timed iteration
  std::vector<TileGroupReading> tile_groups;  // traced runs: the GEMM core's stamps (tile_group_events.h)
};

RankResult RunRank(const RankJob& job);

}  // namespace braid::cuda
