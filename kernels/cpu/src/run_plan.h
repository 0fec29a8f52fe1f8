// Runs a checked plan on allocated rank memory: one thread per (rank, lane)
// for warm-up and timed iterations, with a barrier between iterations.
#pragma once

#include <functional>
#include <vector>

#include "braid/backend.h"
#include "braid/transport.h"
#include "fp8_wire.h"
#include "rank_memory.h"

namespace braid::cpu {

// The ranks one process runs: all of them (threads), or one rank of a job
// whose ranks are processes.
struct RankRange {
  int first = 0;
  int count = -1;  // −1: every rank of the plan
  // Called once per iteration boundary after this process's threads all
  // arrived, so that the processes of a job start each iteration together.
  std::function<Status()> cross_process_barrier;
  // > 0: a watchdog fails an iteration that takes longer (ranks as threads,
  // where nothing else bounds a wait). 0: none (ranks as processes, whose
  // transport bounds each wait itself).
  double iteration_timeout_s = 0;
};

// Fills out.events (when tracing) and out.iteration_ns. A failing thread
// aborts the run: the result is Internal with the first failure's message.
// memory[i] is rank (range.first + i)'s. `wires`: how each op's transfers
// travel (fp8_wire.h, by op); empty: every transfer moves fp32. Every thread
// has joined when it returns.
Status ExecutePlan(const Plan& plan, const RunOptions& options, std::vector<RankMemory>& memory, Transport& transport,
                   RunOutput& out, const RankRange& range = {}, const std::vector<WireFormat>& wires = {});

}  // namespace braid::cpu
