// Per-op figures of a layer run: what each GEMM of a block took, so that a
// run of a whole block can say "fc2.dgrad 312 µs, 14 µs of its comm
// exposed" instead of one total. Built from the run's events a batch at a
// time, like RunMetricsBuilder, with each event mapped to its op by name:
// layer plans name every step after its op ("fc2.dgrad.gemm" is a step of
// "fc2.dgrad"; a compute step is named as its op, "attention.backward").
//
// Per (iteration, rank, op):
//   time      from the op's first step's start to its last step's end
//             (a bulk pair's ops each span their own GEMM and collective,
//             so the two overlap in time)
//   compute   |union of the op's compute intervals|
//   comm      |union of the op's comm intervals|
//   exposed   the op's comm not overlapped by any compute of the rank (any
//             op's: a bulk all-gather hidden under the dgrad GEMM counts as
//             hidden)
//   overlap   (comm − exposed) / comm, 0 with no comm
// Summaries are the worst rank's (max for times, min for overlap) p50 over
// iterations, as the run's own figures are.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "braid/event.h"
#include "braid/op_figures.h"

namespace braid {

class OpMetricsBuilder {
 public:
  // The plan's ops by name, in op order (PlanOp::name).
  explicit OpMetricsBuilder(std::vector<std::string> op_names);

  // Events named after no op are left out. Every event of one (iteration,
  // rank) must come in one batch.
  void Add(const std::vector<Event>& events);
  // One per op, in op order.
  std::vector<OpFigures> Finish() const;

 private:
  // The op an event name belongs to: the name itself, or the longest op
  // name followed by '.' that starts it; -1 for none. Memoized by name.
  int OpOf(const std::string& event_name);

  std::vector<std::string> names_;
  std::unordered_map<std::string, int> op_of_name_;
  // [iteration][op]: the worst rank's values so far (time, compute, comm,
  // exposed: max; overlap: min over ranks with the op).
  std::vector<std::vector<std::optional<OpFigures>>> worst_;
};

}  // namespace braid
