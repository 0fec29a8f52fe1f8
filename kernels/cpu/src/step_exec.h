// Executes one plan step on a rank's real memory.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/event.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "braid/transport.h"
#include "fp8_wire.h"
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
  // How each op's transfers travel, by the step's op (Plan::op_workload
  // index); null or shorter: fp32. An FP8 send is encoded into `wire_bytes`
  // (the lane's own) and goes out eagerly, never in place.
  const std::vector<WireFormat>* wires = nullptr;
  std::vector<uint8_t>* wire_bytes = nullptr;
};

// Returns the bytes the step moved or wrote (fp32): gemm the output; send /
// recv the message (as on the wire: 1 byte a value + header when FP8); reduce 3× (two reads, one write) and copy 2× the
// region, as in the plan; a collective what this rank sent over the transport.
Result<int64_t> ExecuteStep(const Step& step, const StepContext& ctx);

}  // namespace braid::cpu
