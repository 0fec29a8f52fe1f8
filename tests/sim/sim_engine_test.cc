#include "braid/sim_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "braid/planner.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid {
namespace {

using ::testing::HasSubstr;

SimBackend H100Backend() { return SimBackend(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm")); }

Plan MakePlan(Op op, Algorithm algo, int chunks, int tp = 8, int64_t size = 8192, int64_t k = 0) {
  Workload w{op, size, size, k > 0 ? k : size, DType::kBf16, tp};
  OverlapConfig c;
  c.algorithm = algo;
  c.chunks = chunks;
  auto p = BuildPlan(w, c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

RunOutput MustRun(SimBackend& b, const Plan& plan, int iters = 1) {
  RunOptions o;
  o.warmup = 1;
  o.iters = iters;
  auto out = b.Run(plan, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : RunOutput{};
}

// A two-rank plan: on each rank one GEMM on the compute lane and, when
// `bytes` > 0, rank 0 sends `bytes` to rank 1 on a comm lane at the same time.
Plan OverlapPlan(int64_t bytes, int comm_priority, CommEngine engine = CommEngine::kSm) {
  const int64_t m = 8192, n = 8192, k = 8192;
  Plan p;
  p.workload = {Op::kGemmAr, m, n, k, DType::kBf16, 2};
  p.config.comm_engine = engine;
  p.lanes = {{"compute", LaneKind::kCompute, 0}, {"comm0", LaneKind::kComm, comm_priority}};
  const int64_t rows = bytes / (n * 2);
  for (int r = 0; r < 2; ++r) {
    RankPlan rp;
    rp.buffers.push_back({"A", m, k, BufferRole::kInput, {Matrix::kA, 0, m, 0, k, 0}});
    rp.buffers.push_back({"B", k, n, BufferRole::kInput, {Matrix::kB, 0, k, 0, n, 0}});
    rp.buffers.push_back({"C", m, n, BufferRole::kOutput, {}});
    rp.buffers.push_back({"X", std::max<int64_t>(rows, 1), n, BufferRole::kWorkspace, {}});
    rp.output = 2;
    rp.output_window = {0, m, 0, n};
    Step g;
    g.id = 0;
    g.kind = StepKind::kGemm;
    g.name = "gemm";
    g.a = Region::Rows(0, 0, m);
    g.b = Region::Rows(1, 0, k);
    g.c = Region::Rows(2, 0, m);
    g.flops = 2.0 * double(m) * double(n) * double(k);
    rp.steps.push_back(g);
    if (rows > 0) {
      Step s;
      s.id = 1;
      s.kind = r == 0 ? StepKind::kSend : StepKind::kRecv;
      s.name = r == 0 ? "send" : "recv";
      s.lane = 1;
      s.peer = 1 - r;
      s.match = 7;
      (r == 0 ? s.a : s.c) = Region::Rows(3, 0, rows);
      s.bytes = rows * n * 2;
      rp.steps.push_back(s);
    }
    p.ranks.push_back(rp);
  }
  return p;
}

const Event& Find(const RunOutput& out, int rank, const char* name) {
  for (const Event& e : out.events) {
    if (e.rank == rank && e.name == name) return e;
  }
  static const Event kNone;
  ADD_FAILURE() << "no event " << name << " on rank " << rank;
  return kNone;
}

TEST(SimEngine, EveryStepOfEveryRankYieldsOneEventPerTimedIteration) {
  SimBackend b = H100Backend();
  for (Algorithm a : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
      const Plan plan = MakePlan(op, a, a == Algorithm::kSerial ? 1 : 2);
      const RunOutput out = MustRun(b, plan, 3);
      ASSERT_EQ(out.events.size(), 3 * plan.total_steps()) << AlgorithmName(a) << " " << OpName(op);
      std::map<std::tuple<int, int, int64_t, std::string, int, int>, int> seen;
      for (const Event& e : out.events) {
        EXPECT_LE(e.start_ns, e.end_ns);
        ++seen[{e.iteration, e.rank, e.correlation, e.name, e.chunk, e.step}];
      }
      ASSERT_EQ(out.iteration_ns.size(), 3u);
      EXPECT_GT(out.iteration_ns[0], 0);
      // Iteration i starts when iteration i−1 ends.
      int64_t first1 = INT64_MAX;
      for (const Event& e : out.events) {
        if (e.iteration == 1) first1 = std::min(first1, e.start_ns);
      }
      EXPECT_GE(first1, out.iteration_ns[0]);
    }
  }
}

TEST(SimEngine, DependenciesLaneOrderAndTransfersAreRespectedInSimulatedTime) {
  SimBackend b = H100Backend();
  for (Algorithm a : {Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    const Plan plan = MakePlan(Op::kGemmRs, a, 2);
    const RunOutput out = MustRun(b, plan);
    // Events are in (rank, step) order.
    size_t i = 0;
    std::vector<std::vector<const Event*>> by_rank(size_t(plan.tp()));
    for (int r = 0; r < plan.tp(); ++r) {
      for (size_t s = 0; s < plan.ranks[size_t(r)].steps.size(); ++s) {
        by_rank[size_t(r)].push_back(&out.events[i++]);
      }
    }
    std::map<int64_t, const Event*> sends;
    for (int r = 0; r < plan.tp(); ++r) {
      const auto& steps = plan.ranks[size_t(r)].steps;
      std::vector<int64_t> lane_end(plan.lanes.size(), 0);
      for (const Step& s : steps) {
        const Event& e = *by_rank[size_t(r)][size_t(s.id)];
        for (int d : s.deps) {
          EXPECT_GE(e.start_ns, by_rank[size_t(r)][size_t(d)]->end_ns);
        }
        EXPECT_GE(e.start_ns, lane_end[size_t(s.lane)]);
        lane_end[size_t(s.lane)] = e.end_ns;
        if (s.kind == StepKind::kSend) sends[s.match] = &e;
      }
    }
    for (int r = 0; r < plan.tp(); ++r) {
      for (const Step& s : plan.ranks[size_t(r)].steps) {
        if (s.kind == StepKind::kRecv) {
          EXPECT_GE(by_rank[size_t(r)][size_t(s.id)]->end_ns, sends.at(s.match)->end_ns);
        }
      }
    }
  }
}

TEST(SimEngine, GemmOverlappedWithAnSmCommKernelRunsSlowerThanAlone) {
  SimBackend b = H100Backend();
  const double alone = double(Find(MustRun(b, OverlapPlan(0, 1)), 0, "gemm").end_ns);
  const RunOutput with = MustRun(b, OverlapPlan(int64_t(512) << 20, 1));
  const Event& g = Find(with, 0, "gemm");
  EXPECT_GT(double(g.end_ns - g.start_ns), alone * 1.1);
  // Rank 1 only receives: its GEMM keeps every SM.
  const Event& g1 = Find(with, 1, "gemm");
  EXPECT_NEAR(double(g1.end_ns - g1.start_ns), alone, alone * 0.01);
  // A copy-engine transfer holds no SMs.
  const RunOutput ce = MustRun(b, OverlapPlan(int64_t(512) << 20, 1, CommEngine::kCopyEngine));
  const Event& gce = Find(ce, 0, "gemm");
  EXPECT_NEAR(double(gce.end_ns - gce.start_ns), alone, alone * 0.01);
}

TEST(SimEngine, LowPriorityCommWaitsForTheGemmWave) {
  SimBackend b = H100Backend();
  const int64_t bytes = int64_t(64) << 20;
  const Event hi = Find(MustRun(b, OverlapPlan(bytes, 1)), 0, "send");
  const Event lo = Find(MustRun(b, OverlapPlan(bytes, 0)), 0, "send");
  EXPECT_GT(lo.end_ns, hi.end_ns);
}

TEST(SimEngine, SerialMakespanIsTheSumOfItsParts) {
  SimBackend b = H100Backend();
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kSerial, 1);
  const RunOutput out = MustRun(b, plan);
  const GpuSpec& gpu = b.gpu();
  const double gemm = sim::GemmTimeNs(gpu, 8192, 8192, 1024, DType::kBf16);
  const double rs = sim::CollectiveTimeNs(b.topology(), CollectiveKind::kReduceScatter, int64_t(8192) * 8192 * 2, 8);
  const double expect = gemm + gpu.launch_us * 1e3 + gpu.event_wait_us * 1e3 + rs;
  EXPECT_NEAR(double(out.iteration_ns[0]), expect, 2.0);
}

int64_t TailNs(const RunOutput& out) {
  int64_t tail = 0;
  std::map<int, int64_t> last_compute, last_end;
  for (const Event& e : out.events) {
    if (e.kind == EventKind::kCompute) last_compute[e.rank] = std::max(last_compute[e.rank], e.end_ns);
    last_end[e.rank] = std::max(last_end[e.rank], e.end_ns);
  }
  for (auto [r, end] : last_end) tail = std::max(tail, end - last_compute[r]);
  return tail;
}

TEST(SimEngine, RingHidesCommBehindComputeWhenComputeBound) {
  // K = 64K: each ring step's GEMM (1024×8192×8192) outlasts its 16 MB
  // transfer. Copy-engine transfers leave the GEMMs every SM.
  SimBackend b = H100Backend();
  const auto ce = [](Plan p) {
    p.config.comm_engine = CommEngine::kCopyEngine;
    return p;
  };
  const RunOutput serial = MustRun(b, MakePlan(Op::kGemmRs, Algorithm::kSerial, 1, 8, 8192, 65536));
  const RunOutput chunked = MustRun(b, ce(MakePlan(Op::kGemmRs, Algorithm::kChunked, 4, 8, 8192, 65536)));
  const RunOutput ring = MustRun(b, ce(MakePlan(Op::kGemmRs, Algorithm::kRing, 1, 8, 8192, 65536)));
  EXPECT_LT(TailNs(ring), TailNs(chunked) / 2);
  EXPECT_LT(ring.iteration_ns[0], serial.iteration_ns[0]);
  EXPECT_LT(chunked.iteration_ns[0], serial.iteration_ns[0]);
}

TEST(SimEngine, SmCommBesideAOneWaveGemmCostsItAWave) {
  // Each ring step's 1024×8192×8192 GEMM is a stream-K grid sized for all
  // 132 SMs: while a send's 16 SMs are held it needs two rounds (the
  // measured cliff of gemm_beside_held_sms.csv), so SM-driven transfers cost
  // the ring more than copy-engine ones.
  SimBackend b = H100Backend();
  Plan sm = MakePlan(Op::kGemmRs, Algorithm::kRing, 1, 8, 8192, 65536);
  Plan ce = sm;
  ce.config.comm_engine = CommEngine::kCopyEngine;
  const RunOutput with_sm = MustRun(b, sm), with_ce = MustRun(b, ce);
  EXPECT_GT(double(with_sm.iteration_ns[0]), 1.02 * double(with_ce.iteration_ns[0]));
}

TEST(SimEngine, OneRankPlanIsItsGemms) {
  SimBackend b = H100Backend();
  const RunOutput out = MustRun(b, MakePlan(Op::kGemmRs, Algorithm::kSerial, 1, 1, 4096));
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_NEAR(double(out.iteration_ns[0]), sim::GemmTimeNs(b.gpu(), 4096, 4096, 4096, DType::kBf16), 1.0);
}

TEST(SimEngine, CopyEngineAllGatherLeavesTheGemmItsSms) {
  SimBackend b = H100Backend();
  // N = 64K: compute-bound, so the GEMM's lost SMs show in the makespan.
  Workload w{Op::kAgGemm, 8192, 65536, 8192, DType::kBf16, 8};
  OverlapConfig sm, ce;
  sm.algorithm = ce.algorithm = Algorithm::kChunked;
  sm.chunks = ce.chunks = 4;
  ce.comm_engine = CommEngine::kCopyEngine;
  auto ps = BuildPlan(w, sm);
  auto pc = BuildPlan(w, ce);
  ASSERT_TRUE(ps.ok() && pc.ok());
  EXPECT_LT(MustRun(b, *pc).iteration_ns[0], MustRun(b, *ps).iteration_ns[0]);
}

TEST(SimEngine, IdenticalInputsGiveIdenticalEvents) {
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kBidirRing, 2);
  SimBackend b1 = H100Backend();
  SimBackend b2 = H100Backend();
  const RunOutput x = MustRun(b1, plan, 2);
  const RunOutput y = MustRun(b2, plan, 2);
  const RunOutput z = MustRun(b1, plan, 2);
  ASSERT_EQ(x.events.size(), y.events.size());
  for (size_t i = 0; i < x.events.size(); ++i) {
    for (const RunOutput* o : {&y, &z}) {  // NOLINT
      const Event& a = x.events[i];
      const Event& c = o->events[i];
      EXPECT_EQ(std::tie(a.iteration, a.rank, a.lane, a.kind, a.name, a.start_ns, a.end_ns, a.bytes, a.chunk, a.step,
                         a.peer, a.correlation),
                std::tie(c.iteration, c.rank, c.lane, c.kind, c.name, c.start_ns, c.end_ns, c.bytes, c.chunk, c.step,
                         c.peer, c.correlation));
    }
  }
}

TEST(SimEngine, RefusesARecvThatNeverGetsASend) {
  Plan plan = OverlapPlan(int64_t(1) << 20, 1);
  plan.ranks[0].steps.pop_back();  // drop the send
  SimBackend b = H100Backend();
  auto out = b.Run(plan, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("recv"));
}

TEST(SimEngine, VerifyDoesNotApply) {
  SimBackend b = H100Backend();
  RunOptions o;
  o.verify = true;
  auto out = b.Run(MakePlan(Op::kAgGemm, Algorithm::kRing, 1), o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ran);
  bool noted = false;
  for (const std::string& n : out->notes) noted = noted || n.find("sim computes no data") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(SimEngine, FactoryLoadsTopologyAndItsGpu) {
  auto b = MakeSimBackend("a100-sxm");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ((*b)->name(), "sim");
  auto bad = MakeSimBackend("dgx-b200");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("h100-sxm"));
  auto small = MakeSimBackend("h100-sxm");
  ASSERT_TRUE(small.ok());
  auto too_big = (*small)->Run(MakePlan(Op::kGemmRs, Algorithm::kSerial, 1, 16, 8192), RunOptions{});
  EXPECT_FALSE(too_big.ok());
}

TEST(SimEngine, CrossNodeRingIsSlowerThanOneNode) {
  auto one = MakeSimBackend("h100-sxm");
  auto two = MakeSimBackend("h100-sxm-2node-ib");
  ASSERT_TRUE(one.ok() && two.ok());
  const Plan p8 = MakePlan(Op::kAgGemm, Algorithm::kRing, 1, 8, 4096);
  const Plan p16 = MakePlan(Op::kAgGemm, Algorithm::kRing, 1, 16, 4096);
  auto a = (*one)->Run(p8, RunOptions{});
  auto c = (*two)->Run(p16, RunOptions{});
  ASSERT_TRUE(a.ok() && c.ok());
  EXPECT_GT(c->iteration_ns[0], a->iteration_ns[0] / 2);
}

// Evaluate skips the plan check, but the engine's Load builds the plan graph:
// a plan it cannot build is refused with the graph's error, and the engine
// then evaluates the next, good plan as before.
TEST(SimEngine, EvaluateRefusesAPlanWhoseGraphDoesNotBuild) {
  SimBackend b = H100Backend();
  const Plan good = OverlapPlan(1 << 20, 1);
  auto before = b.Evaluate(good);
  ASSERT_TRUE(before.ok()) << before.status().message();
  Plan bad = good;
  bad.ranks[1].steps[1].match = 8;  // the recv no longer matches rank 0's send
  auto refused = b.Evaluate(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("rank 0 step 1 (send): no matching recv on rank 1 (match 7)"));
  auto after = b.Evaluate(good);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(*after, *before);
}

}  // namespace
}  // namespace braid
