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

// A step's event spans its GPU work: kernels, copies and memsets. Its
// synchronization and marker records are host API calls (CUPTI times
// cudaStreamWaitEvent where the host calls it, before the GPU reaches it):
// they give a step its span only when it has no GPU record. Counting them
// made a step start when the host issued it: on an H200 a qkv GEMM began
// 5 us before the all-gather it waits for had ended, and serial plans,
// whose communication cannot overlap their own GEMMs, reported overlap
// ratios of 0.1 to 0.5. Records without a Braid id, of warm-up iterations,
// or naming no step of `plan` are dropped. Sorted by iteration, rank,
// start, lane.
std::vector<Event> StepEvents(const Plan& plan, const std::vector<Event>& records);

}  // namespace braid::cuda
