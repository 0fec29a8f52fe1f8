#include "gui_test_util.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "braid/gpu_files.h"
#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid::view::testing {

namespace {

Event Ev(int it, int rank, int lane, EventKind kind, const char* name, int64_t b, int64_t e) {
  Event ev;
  ev.iteration = it;
  ev.rank = rank;
  ev.lane = lane;
  ev.kind = kind;
  ev.name = name;
  ev.start_ns = b;
  ev.end_ns = e;
  return ev;
}

RunMeta MetaFor(int ranks, const std::string& config_json) {
  RunMeta m;
  m.backend = "sim";
  m.topology = "h100-sxm";
  m.workload = {Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, ranks};
  m.config_json = config_json;
  m.iterations = 2;
  return m;
}

}  // namespace

std::vector<Event> HandEvents() {
  std::vector<Event> out;
  for (int it = 0; it < 2; ++it) {
    for (int r = 0; r < 2; ++r) {
      const int64_t o = it * 1000 + r * 10;
      out.push_back(Ev(it, r, 0, EventKind::kCompute, "gemm0", o, o + 100));
      out.back().flops = 2e9;
      out.back().chunk = 0;
      out.push_back(Ev(it, r, 0, EventKind::kCompute, "gemm1", o + 100, o + 200));
      out.back().flops = 2e9;
      out.back().chunk = 1;
      Event send = Ev(it, r, 1, EventKind::kComm, "send0", o + 50, o + 150);
      send.bytes = 1 << 20;
      send.peer = 1 - r;
      send.step = 0;
      send.correlation = 7 + it;
      out.push_back(send);
      out.push_back(Ev(it, r, 1, EventKind::kComm, "send1", o + 200, o + 260));
      out.push_back(Ev(it, r, 2, EventKind::kReduce, "reduce", o + 150, o + 170));
      out.push_back(Ev(it, r, 2, EventKind::kCopy, "copy", o + 170, o + 190));
      out.push_back(Ev(it, r, 2, EventKind::kSync, "sync", o + 260, o + 270));
    }
  }
  return out;
}

std::vector<LaneInfo> HandLanes() {
  std::vector<LaneInfo> lanes;
  for (int r = 0; r < 2; ++r) {
    lanes.push_back({r, 0, "compute", "compute"});
    lanes.push_back({r, 1, "comm", "comm"});
    lanes.push_back({r, 2, "misc", "compute"});
  }
  return lanes;
}

std::vector<Event> DenseEvents(int n, int64_t width, int64_t gap) {
  std::vector<Event> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(Ev(0, 0, 0, EventKind::kCompute, "tiny", i * (width + gap), i * (width + gap) + width));
  }
  return out;
}

SimRun MakeSimRun(const std::string& algorithm, int chunks) {
  SimRun run;
  Workload w{Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, 4};
  OverlapConfig c;
  c.algorithm = algorithm == "ring"      ? Algorithm::kRing
                : algorithm == "chunked" ? Algorithm::kChunked
                                         : Algorithm::kSerial;
  c.chunks = chunks;
  auto plan = BuildPlan(w, c);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return run;
  auto gpu = LoadGpu("h100-sxm");
  auto topo = LoadTopology("h100-sxm");
  EXPECT_TRUE(gpu.ok() && topo.ok());
  if (!gpu.ok() || !topo.ok()) return run;
  SimBackend backend(*gpu, *topo);
  RunOptions o;
  o.iters = 3;
  auto out = backend.Run(*plan, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return run;
  run.events = out->events;
  for (int rank = 0; rank < plan->tp(); ++rank) {
    for (size_t l = 0; l < plan->lanes.size(); ++l) {
      const Lane& lane = plan->lanes[l];
      run.lanes.push_back({rank, int(l), lane.name, lane.kind == LaneKind::kComm ? "comm" : "compute"});
    }
  }
  run.meta = MetaFor(4, nlohmann::json({{"algorithm", algorithm}, {"chunks", chunks}}).dump());
  run.meta.iterations = 3;
  run.metrics = MetricRowsOf(ComputeRunMetrics(run.events));
  return run;
}

int64_t WriteRun(Store& store, const std::vector<Event>& events, const std::vector<LaneInfo>& lanes,
                 const std::string& config_json) {
  auto id = store.WriteRun(MetaFor(2, config_json), lanes, events, MetricRowsOf(ComputeRunMetrics(events)));
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : -1;
}

int64_t WriteSimRun(Store& store, const SimRun& run) {
  auto id = store.WriteRun(run.meta, run.lanes, run.events, run.metrics);
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : -1;
}

}  // namespace braid::view::testing
