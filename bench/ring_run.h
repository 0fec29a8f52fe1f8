// The 1,000,000-event run that the store and viewer benchmarks write and
// read: 8 ranks x (compute, comm) lanes x 25 iterations x 2500 steps, comm
// overlapping compute as a ring does, ~100 distinct step names (many longer
// than the small-string buffer, as a backend names its steps).
#pragma once

#include <cstdint>
#include <vector>

#include "braid/event.h"
#include "braid/store.h"

namespace braid::bench {

constexpr int kRanks = 8, kLanes = 2, kIterations = 25, kPerLane = 2500;  // 1,000,000 events
constexpr int64_t kIterationNs = 50'000'000;

std::vector<Event> MakeRingRun();

// The kRanks x kLanes x kPerLane (40,000) events of iteration `it` alone,
// for a run of any number of iterations written in parts.
std::vector<Event> MakeRingIteration(int it);

// The run's lanes: per rank, lane 0 "compute" and lane 1 "comm".
std::vector<LaneInfo> RingRunLanes();

// A sim ring gemm_rs on h100-sxm at P = kRanks, as the run is stored.
RunMeta RingRunMeta();

}  // namespace braid::bench
