// Runs a checked plan on allocated rank memory: one thread per (rank, lane)
// for warm-up and timed iterations, with a barrier between iterations.
#pragma once

#include <vector>

#include "braid/backend.h"
#include "braid/transport.h"
#include "rank_memory.h"

namespace braid::cpu {

// Fills out.events (when tracing) and out.iteration_ns. A failing thread
// aborts the run: the result is Internal with the first failure's message.
Status ExecutePlan(const Plan& plan, const RunOptions& options, std::vector<RankMemory>& memory,
                   Transport& transport, RunOutput& out);

}  // namespace braid::cpu
