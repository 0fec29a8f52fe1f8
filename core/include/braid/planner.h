// Turns a workload and an overlap config into a Plan.
//
// serial   collective then GEMM (ag_gemm) or GEMM then collective.
// chunked  data slicing: chunk i is slice i of every rank block (for gemm_ar
//          slice i of M); chunk i's collective overlaps chunk i±1's GEMM.
// ring     the collective becomes P−1 peer-to-peer steps. For gemm_rs /
//          gemm_ar the last step computes the rank's own block, so only one
//          add follows the last GEMM.
// bidir_ring  each block is halved; the halves travel in both directions.
#pragma once

#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

Result<Plan> BuildPlan(const Workload& workload, const OverlapConfig& config);

}  // namespace braid
