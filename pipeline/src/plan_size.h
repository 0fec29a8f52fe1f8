// How large a plan would be, known before it is built: `braid run --chunks
// 1048576` or a `tp` of thousands on a large topology would otherwise build
// plans of billions of steps until memory runs out (issue 27 point 4).
#pragma once

#include <cstdint>

#include "braid/budgets.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid::pipeline {

// Memory per plan step and per event, and the bounds: braid/budgets.h.

// The memory a run of a plan of `steps` over `iters` timed iterations needs
// (plan and events, as above).
int64_t EstimateRunBytes(int64_t steps, int iters);

// The steps the plan of (workload, config) would have, from small plans:
// every planner repeats a chunk's steps, so steps grow linearly in the chunk
// count, and at most quadratically in P (a ring: P steps on each of P ranks).
// Plans at 1 and 2 chunks of a stand-in workload at P = 4, 8 and 16 give the
// two lines and the parabola. 0 when the stand-ins cannot be planned (the
// real build then says why).
int64_t EstimatePlanSteps(const Workload& workload, const OverlapConfig& config);

// A layer's plan: its P is bounded by the model's heads, so the 1- and
// 2-chunk plans are built at the real P.
int64_t EstimateLayerPlanSteps(const LayerWorkload& layer, const OverlapConfig& config);

// Invalid, saying how large the plan would be, when `steps` is over
// kMaxPlanSteps.
Status CheckPlanSteps(int64_t steps, int tp, const OverlapConfig& config);

// Invalid, saying how large the run would be, when steps x iters is over
// kMaxRunEvents. @pre steps <= kMaxPlanSteps.
Status CheckRunEvents(int64_t steps, int iters);

}  // namespace braid::pipeline
