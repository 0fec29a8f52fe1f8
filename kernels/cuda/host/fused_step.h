// The fused kernel's steps (StepKind::kFused) on the cuda backend: the shape
// and the refusals before anything is allocated, the per-rank setup (tables,
// flags, partials and the error record uploaded; peers' addresses exchanged
// through PeerMemory), the launch per iteration, and the read-back of the
// kernel's timeout record after it, reported as one line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "braid/cuda_backend.h"
#include "braid/fused_kernel_api.h"
#include "braid/fused_schedule.h"
#include "braid/peer_memory.h"
#include "rank_state.h"
#include "upload_vector.h"

namespace braid::cuda {

struct FusedSettings {
  int sms_per_rank = 0;   // the GPU's SMs, or SMs / P in loopback
  int comm_sms = 0;       // --comm-sms (0: DefaultCommCtas)
  double timeout_s = 60;  // the kernel's flag waits give up after half of it
  int never_set_rank = -1, never_set_flag = -1;
  FusedEngine engine = FusedEngine::kTasks;
  DeviceProps props;  // the rank's GPU (the core engine plans for it)
  // The core engine stamps its groups of tiles (gemm/tile_times.h) only for
  // a traced run, the one that reads them: an untraced run pays no resets.
  bool stamp_tiles = false;
};

// Step `s` (kFused) of rank plan `rp` as the kernel's shape.
fused::FusedShape FusedShapeOf(const Plan& plan, const RankPlan& rp, const Step& s, const FusedSettings& f);
bool HasFusedSteps(const Plan& plan);
// Every fused step passes CheckFusedShape; the test hook names a real rank.
Status CheckFusedPlan(const Plan& plan, const FusedSettings& f);

// Collective over the ranks (it exchanges addresses): every rank calls it.
Status SetUpFusedSteps(RankState& st, const FusedSettings& f, const DeviceAlloc& alloc, PeerMemory& peers,
                       std::vector<FusedStepState>& out);
Status IssueFused(RankState& st, const Step& s, GpuStream lane, uint32_t epoch);
// After the iteration's work finished: the first fused kernel that timed out, as one line.
Status CheckFusedErrors(RankState& st, int iteration);

}  // namespace braid::cuda
