// docs/design.md's lower bound: LB = max(C_alone, M_alone), measured by running
// the compute of the unsplit (serial) plan alone and its communication alone
// on the same backend; a run's efficiency is LB / makespan.
#pragma once

#include "braid/backend.h"
#include "braid/plan.h"
#include "braid/run_figures.h"
#include "braid/status.h"

namespace braid {

// `serial` is the serial plan of the run's workload. Uses at most 3 timed
// iterations after one warm-up; medians of the per-iteration times.
Result<LowerBound> MeasureLowerBound(Backend& backend, const Plan& serial, const RunOptions& options);

}  // namespace braid
