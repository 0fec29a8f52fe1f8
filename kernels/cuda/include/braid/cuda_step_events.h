// From the tracer's GPU activity records to one Braid event per executed
// plan step. Every step's GPU work is tagged with an external correlation id
// that encodes (timed iteration, rank, step); a step's event spans all of its
// records (a send's staging copy and its NCCL kernel, say).
#pragma once

#include <cstdint>
#include <vector>

#include "braid/event.h"
#include "braid/plan.h"

namespace braid::cuda {

// (iteration + 1) << 40 | rank << 24 | step. Warm-up iterations pass -1.
uint64_t StepCorrelation(int iteration, int rank, int step);
struct StepKey {
  int iteration = 0, rank = 0, step = 0;
};
StepKey DecodeCorrelation(uint64_t id);

// Records without a Braid id, of warm-up iterations, or naming no step of
// `plan` are dropped. Sorted by iteration, rank, start, lane.
std::vector<Event> StepEvents(const Plan& plan, const std::vector<Event>& records);

}  // namespace braid::cuda
