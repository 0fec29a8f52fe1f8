// The proof that the GEMM core's fused schedule is safe (core_schedule.h),
// run over every rank's schedule before anything is launched, in the manner
// of fused_schedule_check.h:
//  1. every rank hands out every tile of the scheduler exactly once;
// ag_gemm:
//  2. every arrival step 1..P−1 is raised by exactly one pull, and step 0
//     by none (the own block is there before the kernel starts);
//  3. the pulls of a rank bring every row of A it does not own exactly once,
//     each from the rank that owns it (an input, so the copy waits for
//     nothing: no pull depends on a GEMM, hence no deadlock);
//  4. a tile waits for a step at or after the step of every row it reads:
//     when its flag is up, its rows are.
// gemm_rs:
//  2. over all ranks, every (owner, slot, tile of the owner's block) is
//     written exactly once, slot = the writing rank: every element of every
//     receive buffer is written once per run;
//  3. every counter of every owner is raised exactly P times per run, the
//     reduce's target (epoch·P), and tiles never straddle two owners.
// Errors name the rank and the tile or step.
#pragma once

#include <vector>

#include "braid/core_schedule.h"

namespace braid::cuda::fused {

Status CheckCoreSchedule(FusedOp op, const gemm::TileScheduler& sched, int ranks,
                         const std::vector<CoreRankSchedule>& all);

}  // namespace braid::cuda::fused
