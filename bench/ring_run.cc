#include "ring_run.h"

#include <string>

namespace braid::bench {

namespace {

Event RingEvent(int r, int l, int it, int s) {
  Event e;
  e.iteration = it;
  e.rank = r;
  e.lane = l;
  e.kind = l == 0 ? EventKind::kCompute : EventKind::kComm;
  e.name = (l == 0 ? "gemm_rs gemm step " : "gemm_rs send step ") + std::to_string(s % 50);
  e.start_ns = int64_t(it) * kIterationNs + int64_t(s) * 18'000 + l * 3'000 + r * 100;
  e.end_ns = e.start_ns + 15'000 + s % 7;
  e.bytes = l == 0 ? 0 : 4 << 20;
  e.flops = l == 0 ? 2.0 * 4096 * 1024 * 8192 : 0;
  e.chunk = s % 4;
  e.step = s % 7;
  e.peer = l == 0 ? -1 : (r + 1) % kRanks;
  e.correlation = l == 0 ? -1 : int64_t(it) * 1'000'000 + r * 10'000 + s;
  return e;
}

}  // namespace

std::vector<Event> MakeRingRun() {
  std::vector<Event> events;
  events.reserve(size_t(kRanks) * kLanes * kIterations * kPerLane);
  for (int r = 0; r < kRanks; ++r) {
    for (int l = 0; l < kLanes; ++l) {
      for (int it = 0; it < kIterations; ++it) {
        for (int s = 0; s < kPerLane; ++s) events.push_back(RingEvent(r, l, it, s));
      }
    }
  }
  return events;
}

std::vector<Event> MakeRingIteration(int it) {
  std::vector<Event> events;
  events.reserve(size_t(kRanks) * kLanes * kPerLane);
  for (int r = 0; r < kRanks; ++r) {
    for (int l = 0; l < kLanes; ++l) {
      for (int s = 0; s < kPerLane; ++s) events.push_back(RingEvent(r, l, it, s));
    }
  }
  return events;
}

std::vector<LaneInfo> RingRunLanes() {
  std::vector<LaneInfo> lanes;
  for (int r = 0; r < kRanks; ++r) {
    lanes.push_back({r, 0, "compute", "compute"});
    lanes.push_back({r, 1, "comm", "comm"});
  }
  return lanes;
}

RunMeta RingRunMeta() {
  RunMeta m;
  m.backend = "sim";
  m.topology = "h100-sxm";
  m.workload = {Op::kGemmRs, 4096, 8192, 28672, DType::kBf16, kRanks};
  m.config_json = R"({"algorithm":"ring","chunks":1})";
  m.host = "bench";
  m.iterations = kIterations;
  return m;
}

}  // namespace braid::bench
