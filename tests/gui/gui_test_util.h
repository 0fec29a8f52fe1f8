// Fixtures for braid-view's tests: scratch stores holding a hand-made run
// whose figures are known, and real sim runs (ring, chunked) of one workload.
#pragma once

#include <string>
#include <vector>

#include "braid/event.h"
#include "braid/store.h"
#include "temp_dir.h"

namespace braid::view::testing {

using ::braid::testing_files::FileBytes;
using ::braid::testing_files::TempDir;

// Two ranks, two iterations 1000 ns apart; rank 1 is rank 0 shifted by 10 ns.
// Per rank and iteration (offsets from the iteration's start):
//   lane 0 "compute": gemm0 [0,100) gemm1 [100,200)
//   lane 1 "comm":    send0 [50,150) (correlation 7 + iteration, peer = other rank)
//                     send1 [200,260) (nothing under it: exposed)
//   lane 2 "misc":    reduce [150,170) copy [170,190) sync [260,270)
// So compute 200, comm 160, overlap 100, exposed 60, tail 60 (200 -> 260).
std::vector<Event> HandEvents();
std::vector<LaneInfo> HandLanes();

// One compute lane of `n` events `width` ns wide, `gap` ns apart.
std::vector<Event> DenseEvents(int n, int64_t width, int64_t gap);

// A real sim run of gemm_rs M=N=K=8192 bf16 P=4 on h100-sxm with `algorithm`
// ("ring" | "chunked" | "serial") and `chunks`, 3 iterations.
struct SimRun {
  RunMeta meta;
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
  std::vector<MetricRow> metrics;
};
SimRun MakeSimRun(const std::string& algorithm, int chunks);

// Writes a run (metric rows computed from the events) and returns its id.
int64_t WriteRun(Store& store, const std::vector<Event>& events, const std::vector<LaneInfo>& lanes,
                 const std::string& config_json = R"({"algorithm":"ring","chunks":1})");
int64_t WriteSimRun(Store& store, const SimRun& run);

}  // namespace braid::view::testing
