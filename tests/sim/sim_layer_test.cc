// Layer plans on the sim backend: attention as a compute kernel, the
// shipped models' blocks under every algorithm, iso included, and the
// ring's gain on llama3 blocks beside the published async-TP figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid {
namespace sim_layer_test {
namespace {

SimBackend H100Backend() { return SimBackend(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm")); }

LayerWorkload Llama70b(Phase phase = Phase::kPrefill, std::optional<bool> sp = std::nullopt) {
  auto m = LoadModel("llama3-70b");
  EXPECT_TRUE(m.ok()) << m.status().message();
  auto lw = MakeLayerWorkload(*m, 4096, 1, phase, 8, DType::kBf16, sp);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return *lw;
}

Plan MustPlan(const LayerWorkload& lw, Algorithm algo, int chunks, int streams = 1) {
  OverlapConfig c;
  c.algorithm = algo;
  c.chunks = chunks;
  c.comm_lanes = streams;
  auto p = BuildLayerPlan(lw, c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : Plan();
}

RunOutput MustRun(SimBackend& b, const Plan& plan) {
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  auto out = b.Run(plan, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : RunOutput{};
}

TEST(SimLayer, AttentionTakesItsFlopsAtPeakTimesEfficiencyPlusLaunch) {
  auto gpu = LoadGpu("h100-sxm");
  ASSERT_TRUE(gpu.ok());
  const LayerWorkload lw = Llama70b();
  SimBackend b = H100Backend();
  const Plan plan = MustPlan(lw, Algorithm::kSerial, 1);
  const RunOutput out = MustRun(b, plan);
  const double want = lw.ops[1].flops / (gpu->tflops_bf16 * 1e3 * gpu->efficiency_bf16);
  int seen = 0;
  for (const Event& e : out.events) {
    if (e.name != "attention" || e.rank != 0) continue;
    ++seen;
    EXPECT_EQ(e.kind, EventKind::kCompute);
    const double ns = double(e.end_ns - e.start_ns);
    // Compute-bound (llama3-70b prefill 4096: ~69 GFLOP per rank): within
    // the memory floor's 2-norm and the launch.
    EXPECT_GT(ns, want);
    EXPECT_LT(ns, want * 1.05 + gpu->launch_us * 1e3);
  }
  EXPECT_EQ(seen, 1);
}

TEST(SimLayer, EveryAlgorithmRunsTheShippedModels) {
  SimBackend b = H100Backend();
  for (const std::string& name : BuiltinModelNames()) {
    auto m = LoadModel(name);
    ASSERT_TRUE(m.ok());
    int p = 8;  // the most ranks (up to 8) whose heads split evenly (llama-30b's 52: 4)
    while (m->heads % p != 0 || m->kv_heads % p != 0) p /= 2;
    for (bool sp : {true, false}) {
      auto lw = MakeLayerWorkload(*m, 2048, 1, Phase::kPrefill, p, DType::kBf16, sp);
      ASSERT_TRUE(lw.ok()) << lw.status().message();
      for (auto [algo, chunks] : {std::pair{Algorithm::kSerial, 1},
                                  {Algorithm::kChunked, 2},
                                  {Algorithm::kRing, 2},
                                  {Algorithm::kBidirRing, 1}}) {
        const RunOutput out = MustRun(b, MustPlan(*lw, algo, chunks, 2));
        EXPECT_FALSE(out.iteration_ns.empty()) << name;
      }
      if (!sp) {
        const RunOutput out = MustRun(b, MustPlan(*lw, Algorithm::kIso, 2, 1));
        EXPECT_FALSE(out.iteration_ns.empty()) << name;
      }
    }
  }
}

TEST(SimLayer, IsoOverlapsAllReducesAndBeatsSerialWithoutSequenceParallelism) {
  const LayerWorkload lw = Llama70b(Phase::kPrefill, false);
  SimBackend b = H100Backend();
  auto serial = b.Evaluate(MustPlan(lw, Algorithm::kSerial, 1));
  auto iso = b.Evaluate(MustPlan(lw, Algorithm::kIso, 2));
  ASSERT_TRUE(serial.ok() && iso.ok());
  EXPECT_LT(*iso, *serial);
}

// ISO's point (arXiv:2409.11155): part 1's attention runs beside part 0's
// out_proj all-reduce. On eight RTX 4090s (PCIe, no peer-to-peer) that
// all-reduce is as long as the attention block, so most of it hides; with
// the parts' ops emitted op-major (every part's attention before either
// all-reduce) it hid beside no attention at all, and iso gained 16 % there
// where the paper reports about 35 % (docs/simulator.md).
TEST(SimLayer, IsoRunsOnePartsAttentionBesideTheOtherPartsAllReduce) {
  auto model = LoadModel("llama3-70b");
  ASSERT_TRUE(model.ok());
  auto lw = MakeLayerWorkload(*model, 4096, 1, Phase::kPrefill, 8, DType::kBf16, false);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  SimBackend b(*LoadGpu("rtx4090"), *LoadTopology("rtx4090-pcie"));
  const RunOutput iso = MustRun(b, MustPlan(*lw, Algorithm::kIso, 2));
  const Event *attention1 = nullptr, *all_reduce0 = nullptr;
  for (const Event& e : iso.events) {
    if (e.rank != 0) continue;
    if (e.name == "attention.part1") attention1 = &e;
    if (e.name.rfind("out_proj.part0", 0) == 0 && e.kind == EventKind::kComm) all_reduce0 = &e;
  }
  ASSERT_NE(attention1, nullptr);
  ASSERT_NE(all_reduce0, nullptr);
  const int64_t overlap =
      std::min(attention1->end_ns, all_reduce0->end_ns) - std::max(attention1->start_ns, all_reduce0->start_ns);
  EXPECT_GT(overlap, (attention1->end_ns - attention1->start_ns) / 2)
      << "part 1's attention [" << attention1->start_ns << ", " << attention1->end_ns << ") beside part 0's "
      << "all-reduce [" << all_reduce0->start_ns << ", " << all_reduce0->end_ns << ")";
  // The sim's iteration time is the iteration's makespan.
  ASSERT_EQ(iso.iteration_ns.size(), 1u);
  auto serial = b.Evaluate(MustPlan(*lw, Algorithm::kSerial, 1));
  ASSERT_TRUE(serial.ok());
  EXPECT_LT(double(iso.iteration_ns[0]), 0.8 * *serial);
}

TEST(SimLayer, DecodeRuns) {
  SimBackend b = H100Backend();
  const RunOutput out = MustRun(b, MustPlan(Llama70b(Phase::kDecode), Algorithm::kSerial, 1));
  EXPECT_FALSE(out.iteration_ns.empty());
}

// The duration of rank 0's step `name` (one timed iteration).
double StepNs(const RunOutput& out, const std::string& name) {
  for (const Event& e : out.events) {
    if (e.rank == 0 && e.name == name) return double(e.end_ns - e.start_ns);
  }
  ADD_FAILURE() << "no event " << name;
  return 0;
}

// TE's bulk overlap on the sim: the wgrad's all-gather beside the dgrad GEMM
// holds SMs and HBM as any overlapped collective does, so the GEMM beside it
// is slower than alone, the more so the more SMs the collective holds, and
// the pair as a whole is still faster than serial.
TEST(SimLayer, ABulkCollectiveContendsWithTheGemmBesideIt) {
  const LayerWorkload train = Llama70b(Phase::kTrain);
  SimBackend b = H100Backend();
  auto run = [&](Algorithm a, int comm_sms) {
    OverlapConfig c;
    c.algorithm = a;
    c.comm_sms = comm_sms;
    auto plan = BuildLayerPlan(train, c);
    EXPECT_TRUE(plan.ok()) << plan.status().message();
    return plan.ok() ? MustRun(b, *plan) : RunOutput{};
  };
  const RunOutput serial = run(Algorithm::kSerial, 0);
  const RunOutput bulk8 = run(Algorithm::kBulk, 8);
  const RunOutput bulk32 = run(Algorithm::kBulk, 32);
  const double alone = StepNs(serial, "fc1.dgrad.gemm");
  const double beside8 = StepNs(bulk8, "fc1.dgrad.gemm");
  const double beside32 = StepNs(bulk32, "fc1.dgrad.gemm");
  EXPECT_GT(beside8, alone);
  EXPECT_GT(beside32, beside8);
  // The wgrad GEMM beside the dgrad's reduce-scatter too.
  EXPECT_GT(StepNs(bulk32, "fc1.wgrad.gemm"), StepNs(serial, "fc1.wgrad.gemm"));
  EXPECT_LT(bulk8.iteration_ns.at(0), serial.iteration_ns.at(0));
}

// The ring's forward gain over serial on whole llama3 blocks (TP8,
// h100-sxm, seq 8192), held to the public figures it was calibrated
// against (docs/simulator.md, "Ring gains beside published figures").
// PyTorch's async-TP post (discuss.pytorch.org/t/209487) reports "up to
// ~29 %" forward speedup for the 8B and "up to ~20 %" for the 70B on 8
// H100s; torchtitan's async-TP benchmark
// (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md) runs the 8B at a
// local batch of 12 sequences of 8192. The ring is async-TP's pattern:
// copy engines, two comm streams.
double RingGain(const std::string& model, int64_t batch, int chunks) {
  auto m = LoadModel(model);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return 0;
  auto lw = MakeLayerWorkload(*m, 8192, batch, Phase::kPrefill, 8, DType::kBf16, true);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  if (!lw.ok()) return 0;
  OverlapConfig ring;
  ring.algorithm = Algorithm::kRing;
  ring.chunks = chunks;
  ring.comm_lanes = 2;
  ring.comm_engine = CommEngine::kCopyEngine;
  OverlapConfig serial;
  serial.algorithm = Algorithm::kSerial;
  auto ring_plan = BuildLayerPlan(*lw, ring);
  auto serial_plan = BuildLayerPlan(*lw, serial);
  EXPECT_TRUE(ring_plan.ok() && serial_plan.ok());
  if (!ring_plan.ok() || !serial_plan.ok()) return 0;
  SimBackend b = H100Backend();
  auto ring_ns = b.Evaluate(*ring_plan);
  auto serial_ns = b.Evaluate(*serial_plan);
  EXPECT_TRUE(ring_ns.ok() && serial_ns.ok());
  if (!ring_ns.ok() || !serial_ns.ok()) return 0;
  return double(*serial_ns) / double(*ring_ns);
}

TEST(SimLayer, RingGainsOnLlama3AreWithinTenPercentOfThePublishedAsyncTpForwardGains) {
  // 8B at torchtitan's batch: 1.29 published.
  const double gain_8b = RingGain("llama3-8b", 12, 2);
  EXPECT_GT(gain_8b, 1.29 * 0.9);
  EXPECT_LT(gain_8b, 1.29 * 1.1);
  // 70B at one sequence: 1.20 published.
  const double gain_70b = RingGain("llama3-70b", 1, 1);
  EXPECT_GT(gain_70b, 1.20 * 0.9);
  EXPECT_LT(gain_70b, 1.20 * 1.1);
}

// Why the 8B gains less at one sequence: each ring step's GEMM has M / P
// rows (1024 at seq 8192), well below the rate of the whole GEMM; more
// sequences give larger steps and the gain grows toward the published one.
TEST(SimLayer, TheRingGainGrowsWithTheRowsEachStepComputes) {
  const double one = RingGain("llama3-8b", 1, 1);
  const double four = RingGain("llama3-8b", 4, 1);
  EXPECT_GT(one, 1.0);
  EXPECT_GT(four, one + 0.05);
}

}  // namespace
}  // namespace sim_layer_test
}  // namespace braid
