// Executes one plan step on a rank's real memory.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/event.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "braid/transport.h"
#include "rank_memory.h"

namespace braid::cpu {

struct StepContext {
  RankMemory* memory = nullptr;
  Transport* transport = nullptr;
  int rank = 0;
  int ranks = 1;
  std::vector<float>* scratch = nullptr;  // the lane's own, reused across steps
  // Send steps marked here (by step id; SendsInPlace) go out in place from
  // their rows into `pending`, which the lane settles at the iteration's end.
  // Without them every send copies.
  const std::vector<bool>* send_in_place = nullptr;
  PendingSends* pending = nullptr;
};

// Returns the bytes the step moved or wrote (fp32): gemm the output; send /
// recv the message; reduce 3× (two reads, one write) and copy 2× the region,
// as in the plan; a collective what this rank sent over the transport.
Result<int64_t> ExecuteStep(const Step& step, const StepContext& ctx);

}  // namespace braid::cpu
