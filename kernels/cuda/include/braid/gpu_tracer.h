// Where the cuda backend's events come from: CUPTI activity records of the
// GPU work (kernels, copies), tagged with the plan step that launched them by
// an external correlation id pushed around the step's calls, plus NVTX ranges
// naming the steps for Nsight Systems.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "braid/event.h"
#include "braid/status.h"

namespace braid::cuda {

class GpuTracer {
 public:
  virtual ~GpuTracer() = default;
  // Collect records from now on (the timed iterations).
  virtual Status Start() = 0;
  // GPU work the calling thread launches until PopStep is tagged `correlation`.
  // Called for every step, traced or not (NVTX names it either way).
  virtual Status PushStep(uint64_t correlation, std::string_view name) = 0;
  virtual Status PopStep() = 0;
  // Flushes; not ok when records were lost.
  virtual Status Stop() = 0;
  // One event per GPU activity, Event::correlation = the pushed id (others
  // are dropped), times on one clock for the whole run.
  virtual std::vector<Event> TakeEvents() = 0;
  // The clock of TakeEvents' times, read now (ns): a process of an mpirun job
  // relates it to its steady clock to align its events with rank 0's.
  // Unavailable when the times are on no clock (the fake's logical times).
  virtual Result<int64_t> NowNs() { return Status::Unavailable("this tracer has no clock"); }
};

}  // namespace braid::cuda
