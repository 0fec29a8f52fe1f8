// The sim's loopback mode (braid/sim_loopback.h): P ranks on one GPU.
#include "braid/sim_loopback.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "braid/plan_filter.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid {
namespace sim_loopback_test {
namespace {

using ::testing::HasSubstr;

SimBackend Backend(const char* topology, bool loopback) {
  const Topology t = *LoadTopology(topology);
  return SimBackend(*LoadGpu(t.gpu), t, SimModelOptions{.loopback = loopback});
}

// Loopback copies at the rate of one large copy-engine copy
// (loopback_copy_efficiency 1, what copy_engine.csv measured) and fully
// beside GEMMs (loopback_overlap 1, sharing only HBM as that copy did),
// whatever the shipped file's fit to its loopback runs: the model's
// mechanics.
SimBackend CopyEngineRateBackend(const char* topology) {
  const Topology t = *LoadTopology(topology);
  GpuSpec gpu = *LoadGpu(t.gpu);
  gpu.loopback_copy_efficiency = 1.0;
  gpu.loopback_overlap = 1.0;
  return SimBackend(gpu, t, SimModelOptions{.loopback = true});
}

Plan MakePlan(Op op, Algorithm algo, int tp, int64_t m, int64_t n, int64_t k, int chunks = 1) {
  OverlapConfig c;
  c.algorithm = algo;
  c.chunks = chunks;
  auto p = BuildPlan(Workload{op, m, n, k, DType::kBf16, tp}, c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

double Makespan(SimBackend& b, const Plan& plan) {
  auto ns = b.Evaluate(plan);
  EXPECT_TRUE(ns.ok()) << ns.status().message();
  return ns.ok() ? double(*ns) : 0.0;
}

// Two ranks, each one transfer of `bytes` to the other and nothing else
// (`both`: both send at once; else only rank 0).
Plan CopyPlan(int64_t bytes, bool both) {
  Plan p;
  p.workload = {Op::kAgGemm, 64, 64, 64, DType::kBf16, 2};
  p.lanes = {{"compute", LaneKind::kCompute, 0}, {"send", LaneKind::kComm, 0}, {"recv", LaneKind::kComm, 0}};
  const int64_t cols = 1024, rows = bytes / (cols * 2);
  for (int r = 0; r < 2; ++r) {
    RankPlan rp;
    rp.buffers.push_back({"X", rows, cols, BufferRole::kWorkspace, {}});
    rp.buffers.push_back({"Y", rows, cols, BufferRole::kWorkspace, {}});
    rp.output = 1;
    rp.output_window = {0, rows, 0, cols};
    // Rank r sends its X to the other rank (match 10 + r) and receives into Y.
    const auto add = [&](StepKind kind, int match) {
      Step s;
      s.id = int(rp.steps.size());
      s.kind = kind;
      s.name = kind == StepKind::kSend ? "send" : "recv";
      s.lane = kind == StepKind::kSend ? 1 : 2;
      s.peer = 1 - r;
      s.match = match;
      (kind == StepKind::kSend ? s.a : s.c) = Region::Rows(kind == StepKind::kSend ? 0 : 1, 0, rows);
      s.bytes = rows * cols * 2;
      rp.steps.push_back(s);
    };
    if (r == 0 || both) add(StepKind::kSend, 10 + r);
    if (r == 1 || both) add(StepKind::kRecv, 10 + (1 - r));
    p.ranks.push_back(rp);
  }
  return p;
}

// Two ranks, each with one add (c = a + b) of `bytes` of traffic on its
// comm lane (`both`: rank 1 too; else rank 1 has none).
Plan AddPlan(int64_t bytes, bool both) {
  Plan p;
  p.workload = {Op::kGemmRs, 64, 64, 64, DType::kBf16, 2};
  p.lanes = {{"compute", LaneKind::kCompute, 0}, {"add", LaneKind::kComm, 0}};
  const int64_t cols = 1024, rows = bytes / 3 / (cols * 2);
  for (int r = 0; r < 2; ++r) {
    RankPlan rp;
    for (const char* name : {"A", "B", "C"}) rp.buffers.push_back({name, rows, cols, BufferRole::kWorkspace, {}});
    rp.output = 2;
    rp.output_window = {0, rows, 0, cols};
    if (r == 0 || both) {
      Step s;
      s.id = 0;
      s.kind = StepKind::kReduce;
      s.name = "add";
      s.lane = 1;
      s.a = Region::Rows(0, 0, rows);
      s.b = Region::Rows(1, 0, rows);
      s.c = Region::Rows(2, 0, rows);
      s.bytes = 3 * rows * cols * 2;
      rp.steps.push_back(s);
    }
    p.ranks.push_back(rp);
  }
  return p;
}

// A ring's add is an SM kernel: alone it streams at the achievable HBM rate
// (MemoryKernelNs), not at the flag-chained copies' loopback_copy_efficiency;
// two share it.
TEST(SimLoopback, AnAddStreamsAtTheHbmRateAndAddsShareIt) {
  const int64_t bytes = int64_t(3) << 28;
  for (const char* name : {"h100-sxm", "h200-sxm"}) {
    SCOPED_TRACE(name);
    const GpuSpec gpu = *LoadGpu(name);
    SimBackend b = Backend(name, true);
    const double one = Makespan(b, AddPlan(bytes, false));
    EXPECT_NEAR(one, sim::MemoryKernelNs(gpu, bytes), 0.02 * one);
    EXPECT_NEAR(Makespan(b, AddPlan(bytes, true)), 2.0 * one, 0.03 * one);
  }
}

TEST(SimLoopback, RanksShareOneGpuSoTheirGemmsTakeAsLongAsAllOfThemInARow) {
  // Serial gemm_rs: each rank's GEMM, then the reduce-scatter. On P GPUs
  // the GEMMs run side by side; on one they share its SMs.
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kSerial, 4, 8192, 8192, 8192);
  SimBackend apart = Backend("h100-sxm", false), one = Backend("h100-sxm", true);
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  const double gemm = sim::GemmTimeNs(gpu, 8192, 8192, 8192 / 4, DType::kBf16, gpu.sm_count);
  const double loop = Makespan(one, plan), spread = Makespan(apart, plan);
  EXPECT_GT(loop, 3.5 * gemm);  // four GEMMs' work on one GPU
  EXPECT_LT(loop, 4.0 * gemm + 1.5e6);
  EXPECT_LT(spread, 1.5 * gemm + 1.5e6);
  EXPECT_GT(loop, 2.0 * spread);
}

TEST(SimLoopback, ATransferIsADeviceCopyAtTheHbmRateWhateverTheLinks) {
  const int64_t bytes = int64_t(1) << 30;
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  const double hbm = gpu.hbm_gbs * gpu.hbm_efficiency;  // bytes per ns, read + write
  // The same GPU behind NVSwitch or across two nodes: one GPU in loopback.
  for (const char* topo : {"h100-sxm", "h100-sxm-2node-ib"}) {
    SCOPED_TRACE(topo);
    SimBackend b = CopyEngineRateBackend(topo);
    const double one = Makespan(b, CopyPlan(bytes, false));
    EXPECT_NEAR(one, 2.0 * double(bytes) / hbm, 0.02 * one);
    // Two copies at once share the HBM: twice as long, not as fast as one.
    EXPECT_NEAR(Makespan(b, CopyPlan(bytes, true)), 2.0 * one, 0.02 * one);
  }
  // Apart, the same bytes cross NVLink (450 GB/s) far slower than a device copy.
  SimBackend apart = Backend("h100-sxm", false), one = CopyEngineRateBackend("h100-sxm");
  EXPECT_GT(Makespan(apart, CopyPlan(bytes, false)), 2.0 * Makespan(one, CopyPlan(bytes, false)));
}

TEST(SimLoopback, TheGpuFilesLoopbackCopyEfficiencySetsTheCopiesRate) {
  GpuSpec gpu = *LoadGpu("h100-sxm");
  const Topology topo = *LoadTopology("h100-sxm");
  gpu.loopback_copy_efficiency = 1.0;
  SimBackend full(gpu, topo, SimModelOptions{.loopback = true});
  gpu.loopback_copy_efficiency = 0.5;
  SimBackend half(gpu, topo, SimModelOptions{.loopback = true});
  const Plan plan = CopyPlan(int64_t(1) << 30, false);
  EXPECT_NEAR(Makespan(half, plan), 2.0 * Makespan(full, plan), 0.02 * Makespan(half, plan));
  // The shipped H100 and H200 files carry the figures fitted to their loopback runs.
  EXPECT_DOUBLE_EQ(LoadGpu("h100-sxm")->loopback_copy_efficiency, 0.434);
  EXPECT_DOUBLE_EQ(LoadGpu("h200-sxm")->loopback_copy_efficiency, 0.402);
}

// Rank 0 sends `copy_bytes` to rank 1 (CopyPlan) and then runs an 8192^3
// GEMM, which starts beside the copy.
Plan GemmBesideCopyPlan(int64_t copy_bytes) {
  Plan p = CopyPlan(copy_bytes, false);
  p.workload = {Op::kAgGemm, 8192, 8192, 8192, DType::kBf16, 2};
  RankPlan& r0 = p.ranks[0];
  r0.buffers.push_back({"A", 8192, 8192, BufferRole::kInput, {Matrix::kA, 0, 8192, 0, 8192, 0}});
  r0.buffers.push_back({"B", 8192, 8192, BufferRole::kInput, {Matrix::kB, 0, 8192, 0, 8192, 0}});
  r0.buffers.push_back({"C", 8192, 8192, BufferRole::kOutput, {}});
  Step g;
  g.id = 1;
  g.kind = StepKind::kGemm;
  g.name = "gemm";
  g.a = Region::Rows(2, 0, 8192);
  g.b = Region::Rows(3, 0, 8192);
  g.c = Region::Rows(4, 0, 8192);
  g.flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  r0.steps.push_back(g);
  return p;
}

// loopback_overlap: at 0 a device copy beside a GEMM shares the GPU's time
// with it, so the two take as long as one after the other; at 1 the copy
// hides under the GEMM, sharing only HBM; the shipped H100 and H200 (0.1,
// fitted to their loopback runs) lie between, near 0.
TEST(SimLoopback, ACopyBesideAGemmIsHardlyHiddenOnTheShippedH100AndH200) {
  const Plan gemm_and_copy = GemmBesideCopyPlan(int64_t(1) << 30);
  const Plan copy_only = CopyPlan(int64_t(1) << 30, false);
  for (const char* name : {"h100-sxm", "h200-sxm"}) {
    SCOPED_TRACE(name);
    GpuSpec gpu = *LoadGpu(name);
    EXPECT_EQ(gpu.loopback_overlap, 0.1);
    const Topology topo = *LoadTopology(name);
    const auto at = [&](double overlap, const Plan& plan) {
      GpuSpec g = gpu;
      g.loopback_overlap = overlap;
      SimBackend b(g, topo, SimModelOptions{.loopback = true});
      return Makespan(b, plan);
    };
    const double gemm = sim::GemmTimeNs(gpu, 8192, 8192, 8192, DType::kBf16, gpu.sm_count);
    const double copy = at(0.1, copy_only);
    ASSERT_GT(copy, 0.5 * gemm);  // long enough that hiding it shows
    const double serial = at(0.0, gemm_and_copy), shipped = at(0.1, gemm_and_copy), hidden = at(1.0, gemm_and_copy);
    EXPECT_NEAR(serial, gemm + copy, 0.05 * (gemm + copy));
    EXPECT_LT(hidden, 0.85 * serial);
    EXPECT_LT(shipped, serial);
    EXPECT_GT(shipped, hidden + 0.7 * (serial - hidden));
  }
}

// The host calls a rank makes before its last step (LoopbackHostCalls, less
// the cross-lane waits: a lower bound).
double CallsBeforeLast(const Plan& plan) {
  double most = 0;
  for (const RankPlan& rp : plan.ranks) {
    double calls = 0;
    for (size_t i = 0; i + 1 < rp.steps.size(); ++i) calls += sim::LoopbackHostCalls(rp.steps[i], plan.tp(), 0);
    most = std::max(most, calls);
  }
  return most;
}

// The ranks of one process launch through one driver: every host call takes
// the thread's own part (loopback_rank_launch_us, beside the other ranks')
// and the driver's shared part (loopback_launch_us, in turns with every
// rank's), each rank in its steps' order. A ring of small GEMMs (hundreds of
// calls) then takes at least its calls' time; the thread's part costs the
// same per call at any P, the driver's P times as much; at 0 nothing waits,
// as before; a run of a few millisecond GEMMs hides its launches.
TEST(SimLoopback, EveryHostCallTakesItsThreadsPartAndATurnOfTheDriver) {
  const Topology topo = *LoadTopology("h200-sxm");
  const GpuSpec shipped = *LoadGpu("h200-sxm");
  EXPECT_EQ(shipped.loopback_rank_launch_us, 5.0);
  EXPECT_EQ(shipped.loopback_launch_us, 0.375);
  const auto makespan = [&](double rank_us, double driver_us, const Plan& plan) {
    GpuSpec g = shipped;
    g.loopback_rank_launch_us = rank_us;
    g.loopback_launch_us = driver_us;
    SimBackend b(g, topo, SimModelOptions{.loopback = true});
    return Makespan(b, plan);
  };
  for (int tp : {2, 4, 8}) {
    SCOPED_TRACE(tp);
    const Plan small = MakePlan(Op::kGemmRs, Algorithm::kRing, tp, 2048, 1024, 1024, 4);
    const double calls = CallsBeforeLast(small);
    ASSERT_GE(calls, 2.0 * double(small.ranks[0].steps.size() - 1));  // the work's call and the record, at least
    const double free = makespan(0, 0, small);
    // A rank's last step is launched once the calls before it are, and
    // then still runs.
    EXPECT_GE(makespan(5.0, 0.375, small), calls * (5.0 + tp * 0.375) * 1e3);
    EXPECT_GT(makespan(5.0, 0.375, small), free);
    // The thread's part: per call whatever P. The driver's: P turns a call.
    const double thread_10 = makespan(10.0, 0, small), thread_20 = makespan(20.0, 0, small);
    EXPECT_NEAR(thread_20 - thread_10, calls * 10e3, 0.2 * calls * 10e3);
    const double driver_2 = makespan(0, 2.0, small), driver_4 = makespan(0, 4.0, small);
    EXPECT_NEAR(driver_4 - driver_2, calls * tp * 2e3, 0.2 * calls * tp * 2e3);
  }
  // Millisecond GEMMs: a few steps per rank, their launches hidden.
  const Plan big = MakePlan(Op::kGemmRs, Algorithm::kRing, 4, 8192, 8192, 8192);
  EXPECT_NEAR(makespan(5.0, 0.375, big), makespan(0, 0, big), 0.01 * makespan(0, 0, big));
}

// What the cuda backend issues per step (step_issue.cc): a GEMM over P
// pieces is P cuBLASLt calls, a collective a copy and a flag to each peer,
// its own part, a wait and a copy or add from each; each step waits on its
// other lanes and records its done event.
TEST(SimLoopback, HostCallsFollowWhatTheCudaBackendIssues) {
  const Plan serial = MakePlan(Op::kAgGemm, Algorithm::kSerial, 4, 4096, 1024, 1024);
  int gemms = 0, collectives = 0;
  for (const Step& s : serial.ranks[0].steps) {
    if (s.kind == StepKind::kGemm) {
      ++gemms;
      ASSERT_EQ(s.a.pieces, 4);
      EXPECT_EQ(sim::LoopbackHostCalls(s, 4, 1), 1 + 4 + 1);
    }
    if (s.kind == StepKind::kCollective) {
      ++collectives;
      EXPECT_EQ(sim::LoopbackHostCalls(s, 4, 0), 4 * 3 + 1 + 1);
    }
  }
  EXPECT_EQ(gemms, 1);
  EXPECT_EQ(collectives, 1);
  const Plan ring = MakePlan(Op::kAgGemm, Algorithm::kRing, 4, 4096, 1024, 1024);
  for (const Step& s : ring.ranks[0].steps) {
    // A send: its copy, its flag, the record; a recv: the flag wait, the
    // copy out, the record; a GEMM of one piece: the call and the record.
    const int want = s.kind == StepKind::kGemm ? 2 : 3;
    if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv || s.kind == StepKind::kGemm) {
      EXPECT_EQ(sim::LoopbackHostCalls(s, 4, 0), want) << StepKindName(s.kind);
    }
  }
}

// The plan with every GEMM over one piece of all its rows (the same memory:
// a serial plan's pieces touch).
Plan OnePieceGemms(Plan plan) {
  for (RankPlan& rp : plan.ranks) {
    for (Step& s : rp.steps) {
      if (s.kind != StepKind::kGemm || s.a.pieces == 1) continue;
      EXPECT_EQ(s.a.stride, s.a.rows);
      s.a = Region::Rows(s.a.buffer, s.a.row, s.a.total_rows());
      s.c = Region::Rows(s.c.buffer, s.c.row, s.c.total_rows());
    }
  }
  return plan;
}

// In loopback cuBLASLt chooses and grids every rank's GEMM for the whole
// GPU (no SM count target without a margin), so P ranks' GEMMs side by side
// take at least their full-GPU times one after another: qkv's ring at P 8,
// its GEMMs alone (64 of 1024 x 1280 x 8192), launches free. BodyNs on a
// P-th of the SMs alone would re-tile each for 16 SMs and finish sooner.
TEST(SimLoopback, RanksGemmsOnTheirSharesAreNoFasterThanTheWholeGpuInTurn) {
  for (const char* name : {"h100-sxm", "h200-sxm"}) {
    SCOPED_TRACE(name);
    const Topology topo = *LoadTopology(name);
    GpuSpec gpu = *LoadGpu(name);
    gpu.loopback_launch_us = gpu.loopback_rank_launch_us = 0;
    SimBackend b(gpu, topo, SimModelOptions{.loopback = true});
    const Plan gemms = FilterPlan(MakePlan(Op::kAgGemm, Algorithm::kRing, 8, 8192, 10240, 8192),
                                  [](const Step& s) { return s.kind == StepKind::kGemm; });
    const double one = sim::GemmTimeNs(gpu, 1024, 1280, 8192, DType::kBf16) - gpu.launch_us * 1e3;
    const double share = sim::GemmCostOf(gpu, 1024, 1280, 8192, DType::kBf16).BodyNs(gpu.sm_count / 8);
    ASSERT_LT(8 * share, 0.95 * 64 * one);  // what the cap changes: re-tiled, 8 ranks' would beat 64 in turn
    EXPECT_GE(Makespan(b, gemms), 0.99 * 64 * one);
    EXPECT_LT(Makespan(b, gemms), 1.15 * 64 * one);
  }
}

// The cuda backend multiplies a region of P pieces one piece at a time
// (step_issue.cc Gemm): in loopback, where the sim predicts that backend, a
// serial ag_gemm's GEMM is P GEMMs of M/P rows, each less efficient than
// one of M rows (qkv's 1024 x 1280 x 8192 at P 8), so the run takes longer
// than with one GEMM over the same rows; off loopback the sim keeps one
// GEMM of all the rows (SimGolden), and the two plans take the same.
TEST(SimLoopback, AGemmOverPiecesIsOneGemmPerPieceOnlyInLoopback) {
  const Plan pieced = MakePlan(Op::kAgGemm, Algorithm::kSerial, 8, 8192, 10240, 8192);
  const Plan whole = OnePieceGemms(pieced);
  for (const char* name : {"h100-sxm", "h200-sxm"}) {
    SCOPED_TRACE(name);
    SimBackend loop = Backend(name, true);
    const double p = Makespan(loop, pieced), w = Makespan(loop, whole);
    EXPECT_GT(p, 1.05 * w);
    // Eight ranks' eight GEMMs of 1024 rows: at least what those take one
    // after another on the whole GPU.
    const GpuSpec gpu = *LoadGpu(name);
    EXPECT_GT(p, 64 * (sim::GemmTimeNs(gpu, 1024, 1280, 8192, DType::kBf16) - gpu.launch_us * 1e3));
    SimBackend apart = Backend(name, false);
    EXPECT_EQ(Makespan(apart, pieced), Makespan(apart, whole));
  }
}

TEST(SimLoopback, AGemmBesideADeviceCopySlowsAsTheMeasuredCopyEngineFitSays) {
  // GemmBesideCopyEngineNs is fitted to an H100 GEMM beside a copy-engine
  // device copy (h100-measured copy_engine.csv); loopback must agree.
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  const double beside = sim::GemmBesideCopyEngineNs(gpu, 8192, 8192, 8192, DType::kBf16);
  const double alone = sim::GemmTimeNs(gpu, 8192, 8192, 8192, DType::kBf16, gpu.sm_count);
  ASSERT_GT(beside, 1.3 * alone);
  // Rank 0 multiplies while rank 1 copies into it for longer than the GEMM.
  const Plan p = GemmBesideCopyPlan(int64_t(8) << 30);
  SimBackend b = CopyEngineRateBackend("h100-sxm");
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  auto out = b.Run(p, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  int gemms = 0;
  for (const Event& e : out->events) {
    if (e.name != "gemm") continue;
    ++gemms;
    EXPECT_NEAR(double(e.end_ns - e.start_ns), beside - gpu.launch_us * 1e3, 0.03 * beside);
  }
  EXPECT_EQ(gemms, 1);
}

TEST(SimLoopback, EveryAlgorithmRunsAndTheNotesSaySo) {
  SimBackend b = Backend("h100-sxm", true);
  for (Algorithm a :
       {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kFused}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      SCOPED_TRACE(std::string(AlgorithmName(a)) + " " + std::string(OpName(op)));
      const Plan plan = MakePlan(op, a, 4, 4096, 4096, 4096, a == Algorithm::kChunked ? 4 : 1);
      RunOptions o;
      o.warmup = 0;
      o.iters = 1;
      auto out = b.Run(plan, o);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_EQ(out->events.size(), plan.total_steps() + (a == Algorithm::kFused ? plan.total_steps() : 0));
      EXPECT_THAT(out->notes.back(), HasSubstr("loopback: all 4 ranks on one"));
      EXPECT_GT(out->iteration_ns[0], 0);
    }
  }
}

TEST(SimLoopback, PlansOneGpuCannotHoldAreRefusedNamingTp) {
  GpuSpec gpu = *LoadGpu("h100-sxm");
  gpu.sm_count = 6;
  Topology topo = *LoadTopology("h100-sxm");
  topo.gpus_per_node = 16;
  SimBackend b(gpu, topo, SimModelOptions{.loopback = true});
  auto many = b.Evaluate(MakePlan(Op::kAgGemm, Algorithm::kRing, 8, 1024, 1024, 1024));
  ASSERT_FALSE(many.ok());
  EXPECT_THAT(many.status().message(), HasSubstr("`tp` 8 ranks cannot share one"));
  auto fused = b.Evaluate(MakePlan(Op::kAgGemm, Algorithm::kFused, 4, 1024, 1024, 1024));
  ASSERT_FALSE(fused.ok());
  EXPECT_THAT(fused.status().message(), HasSubstr("needs 2 of the 6 SMs"));
  // Four plain ranks fit (one SM each); apart, 16 GPUs would be needed.
  EXPECT_TRUE(b.Evaluate(MakePlan(Op::kAgGemm, Algorithm::kRing, 4, 1024, 1024, 1024)).ok());
}

TEST(SimLoopback, LoopbackLeavesTheMultiGpuModelAsItWas) {
  // The same backend type without loopback gives what it gave before: the
  // per-GPU state is per rank again (SimGolden pins the figures).
  SimBackend a = Backend("h100-sxm", false), b = Backend("h100-sxm", false);
  const Plan plan = MakePlan(Op::kAgGemm, Algorithm::kRing, 8, 8192, 8192, 8192);
  EXPECT_EQ(Makespan(a, plan), Makespan(b, plan));
  SimBackend l = Backend("h100-sxm", true);
  EXPECT_NE(Makespan(l, plan), Makespan(a, plan));
}

}  // namespace
}  // namespace sim_loopback_test
}  // namespace braid
