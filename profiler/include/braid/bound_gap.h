// Where a run's time goes beyond its lower bound (docs/design.md: LB =
// max(compute alone, comm alone)). The side whose alone time is the bound
// — compute or comm — either took longer than alone (stretched: GEMMs slowed
// by the SMs and HBM the transfers take, or transfers slowed by the GEMMs)
// or sat idle (waiting: compute for data to land, comm for a GEMM to finish
// a block). The two add up to makespan − LB exactly, on one rank in one
// iteration, so a user sees which of them a plan knob must shrink.
#pragma once

#include <optional>
#include <string_view>

#include "braid/run_figures.h"

namespace braid {

enum class BoundSide { kCompute, kComm };

struct BoundGap {
  BoundSide side = BoundSide::kCompute;  // the larger alone time
  // The rank-iteration measured: the slowest rank of the median iteration
  // (by that rank's makespan; the lower of two middles).
  int iteration = 0, rank = 0;
  double makespan_ns = 0, bound_ns = 0;
  double stretched_ns = 0;      // the bound side's busy time − its alone time (may be < 0 on noisy backends)
  double idle_ns = 0;           // makespan − the bound side's busy time
  double compute_slowdown = 0;  // compute busy / compute alone (0 when compute alone is 0)
  double comm_slowdown = 0;     // comm busy / comm alone (0 when comm alone is 0)
  double gap_ns() const { return stretched_ns + idle_ns; }  // = makespan_ns − bound_ns
};

// nullopt without a lower bound (imported traces) or without a measured
// rank-iteration.
std::optional<BoundGap> BoundGapOf(const RunFigures& figures);

std::string_view BoundSideName(BoundSide s);  // "compute" | "comm"

}  // namespace braid
