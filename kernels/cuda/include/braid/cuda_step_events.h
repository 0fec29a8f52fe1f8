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
//
// A fused step on the GEMM core (--fused-engine core: its records hold the
// core's kernel, IsCoreGemmKernel) gives two events, as the sim draws a
// fused step: the step's own, compute, spanning the core kernel's record;
// and "<step>/comm", comm on comm lane 1 (the step's lane in a one-lane
// plan), spanning its GPU work on other streams (ag_gemm's pulls and flag
// writes, gemm_rs's reduce) with the step's bytes. Otherwise a fused step is
// one kernel whose communication CUPTI cannot see apart (the task kernel).
std::vector<Event> StepEvents(const Plan& plan, const std::vector<Event>& records);

// Whether `e` is a step's own event, not a part beside it (a core step's
// comm, a tile group: their names add "/" to the step's, and no step's name
// holds one). What the tracer's count of step executions counts.
bool IsStepEvent(const Event& e);

}  // namespace braid::cuda
