// What one op of a layer run took (the worst rank's p50 over iterations):
// measured by braid/op_metrics.h from a run's events, kept in the run's
// layer note (braid/stored_text.h), shown per GEMM by `braid run`, `braid
// report` and the viewer.
#pragma once

namespace braid {

struct OpFigures {
  double time_ns = 0;          // first step's start to last step's end
  double compute_ns = 0;       // |union of its compute|
  double comm_ns = 0;          // |union of its comm|
  double exposed_comm_ns = 0;  // its comm that no compute of the rank hides
  double overlap_ratio = 0;    // (comm − exposed) / comm; 0 without comm
};

}  // namespace braid
