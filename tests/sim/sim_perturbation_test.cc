// The perturbed, noisy sim target: random perturbations are deterministic and
// bounded, ApplyPerturbation touches exactly the named fields, the SM
// contention factor leaves the default model bit-identical and slows only
// plans with comm beside a GEMM, and the noisy backend is reproducible, has
// the requested spread around the noise-free perturbed time, and keeps its
// events consistent with iteration_ns.
#include "braid/sim_perturbation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid {
namespace sim_perturbation_test {
namespace {

using ::testing::HasSubstr;

// RandomPerturbation(42, 0.2): intra_bandwidth and event_wait (first and
// last draw), pinned from the standard's mt19937_64 and our mapping.
constexpr double kSeed42[2] = {1.1020622131818156, 0.8376273247051349};

Plan MakePlan(Op op, Algorithm algo, int chunks = 1, int64_t m = 8192, int64_t n = 8192, int64_t k = 8192) {
  Workload w{op, m, n, k, DType::kBf16, 8};
  OverlapConfig c;
  c.algorithm = algo;
  c.chunks = chunks;
  auto p = BuildPlan(w, c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : Plan();
}

// Plans of every kind of concurrency on h100-sxm TP8.
std::vector<Plan> SomePlans() {
  return {
      MakePlan(Op::kGemmRs, Algorithm::kSerial),
      MakePlan(Op::kGemmRs, Algorithm::kChunked, 4),
      MakePlan(Op::kAgGemm, Algorithm::kChunked, 2),
      MakePlan(Op::kAgGemm, Algorithm::kRing, 1),
      MakePlan(Op::kGemmRs, Algorithm::kBidirRing, 1),
      MakePlan(Op::kGemmRs, Algorithm::kFused),
      MakePlan(Op::kAgGemm, Algorithm::kFused, 1, 4096, 8192, 8192),
  };
}

int64_t Makespan(SimBackend& b, const Plan& plan) {
  auto t = b.Evaluate(plan);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : 0;
}

SimBackend WithContention(double c) {
  SimModelOptions o;
  o.comm_sm_contention = c;
  return SimBackend(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm"), o);
}

RunOptions Iters(int n, bool trace = false) {
  RunOptions o;
  o.warmup = 0;
  o.iters = n;
  o.trace = trace;
  return o;
}

std::vector<double> Factors(const SimPerturbation& p) {
  return {p.intra_bandwidth, p.inter_bandwidth, p.pair_bandwidth, p.comm_sm_contention, p.launch, p.event_wait};
}

TEST(SimPerturbation, RandomIsDeterministicBoundedAndSeedDependent) {
  const std::vector<double> a = Factors(RandomPerturbation(7, 0.2));
  EXPECT_EQ(a, Factors(RandomPerturbation(7, 0.2)));
  EXPECT_NE(a, Factors(RandomPerturbation(8, 0.2)));
  for (uint64_t seed = 0; seed < 200; ++seed) {
    for (double f : Factors(RandomPerturbation(seed, 0.2))) {
      EXPECT_GE(f, 0.8) << seed;
      EXPECT_LE(f, 1.2) << seed;
    }
  }
  // The factors are not all equal and spread over the range.
  double lo = 2, hi = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    for (double f : Factors(RandomPerturbation(seed, 0.2))) lo = std::min(lo, f), hi = std::max(hi, f);
  }
  EXPECT_LT(lo, 0.81);
  EXPECT_GT(hi, 1.19);
  for (double f : Factors(RandomPerturbation(3, 0))) EXPECT_EQ(f, 1.0);
}

TEST(SimPerturbation, RandomIsPortable) {
  // Pinned: std::mt19937_64 output is fixed by the standard and the uniform
  // mapping is ours, so these hold on every standard library.
  std::mt19937_64 g(1);
  const double u = double(g() >> 11) * 0x1.0p-53;
  EXPECT_DOUBLE_EQ(RandomPerturbation(1, 0.2).intra_bandwidth, 0.8 + 0.4 * u);
  const SimPerturbation p = RandomPerturbation(42, 0.2);
  EXPECT_NEAR(p.intra_bandwidth, kSeed42[0], 1e-12);
  EXPECT_NEAR(p.event_wait, kSeed42[1], 1e-12);
}

TEST(SimPerturbation, DescribeNamesEveryFactor) {
  SimPerturbation p;
  p.intra_bandwidth = 0.9;
  p.comm_sm_contention = 1.15;
  const std::string d = Describe(p);
  EXPECT_THAT(d, HasSubstr("intra_bw\u00d70.900"));
  EXPECT_THAT(d, HasSubstr("inter_bw\u00d71.000"));
  EXPECT_THAT(d, HasSubstr("pair_bw"));
  EXPECT_THAT(d, HasSubstr("contention\u00d71.150"));
  EXPECT_THAT(d, HasSubstr("launch"));
  EXPECT_THAT(d, HasSubstr("event_wait"));
}

TEST(SimPerturbation, ApplyScalesExactlyTheNamedFields) {
  const GpuSpec gpu0 = *LoadGpu("h100-sxm");
  const Topology topo0 = *LoadTopology("h100-sxm");
  SimPerturbation p;
  p.intra_bandwidth = 0.8;
  p.inter_bandwidth = 1.1;
  p.pair_bandwidth = 0.9;
  p.comm_sm_contention = 1.2;
  p.launch = 1.15;
  p.event_wait = 0.85;
  GpuSpec gpu = gpu0;
  Topology topo = topo0;
  ApplyPerturbation(p, &gpu, &topo);
  EXPECT_DOUBLE_EQ(topo.intra.bandwidth_gbs, topo0.intra.bandwidth_gbs * 0.8);
  EXPECT_DOUBLE_EQ(topo.inter.bandwidth_gbs, topo0.inter.bandwidth_gbs * 1.1);
  EXPECT_DOUBLE_EQ(topo.pair.bandwidth_gbs, topo0.pair.bandwidth_gbs * 0.9);
  EXPECT_DOUBLE_EQ(gpu.launch_us, gpu0.launch_us * 1.15);
  EXPECT_DOUBLE_EQ(gpu.event_wait_us, gpu0.event_wait_us * 0.85);
  // Everything else as loaded.
  EXPECT_EQ(gpu.sm_count, gpu0.sm_count);
  EXPECT_EQ(gpu.tflops_bf16, gpu0.tflops_bf16);
  EXPECT_EQ(gpu.hbm_gbs, gpu0.hbm_gbs);
  EXPECT_EQ(gpu.hbm_efficiency, gpu0.hbm_efficiency);
  EXPECT_EQ(gpu.efficiency_bf16, gpu0.efficiency_bf16);
  EXPECT_EQ(gpu.tile_m, gpu0.tile_m);
  EXPECT_EQ(topo.intra.latency_us, topo0.intra.latency_us);
  EXPECT_EQ(topo.intra.simple_efficiency, topo0.intra.simple_efficiency);
  EXPECT_EQ(topo.intra.ll_efficiency, topo0.intra.ll_efficiency);
  EXPECT_EQ(topo.inter.latency_us, topo0.inter.latency_us);
  EXPECT_EQ(topo.nccl_channels, topo0.nccl_channels);
  EXPECT_EQ(topo.gpus_per_node, topo0.gpus_per_node);
  // Null pointers are skipped.
  ApplyPerturbation(p, nullptr, &topo);
  ApplyPerturbation(p, &gpu, nullptr);
  EXPECT_DOUBLE_EQ(topo.intra.bandwidth_gbs, topo0.intra.bandwidth_gbs * 0.8 * 0.8);
}

TEST(SimPerturbation, CheckRefusesNonPositiveFactors) {
  EXPECT_TRUE(CheckPerturbation({}).ok());
  SimPerturbation p;
  p.launch = 0;
  EXPECT_FALSE(CheckPerturbation(p).ok());
  p = {};
  p.comm_sm_contention = std::nan("");
  EXPECT_FALSE(CheckPerturbation(p).ok());
  EXPECT_FALSE(MakePerturbedSim("h100-sxm", {}, -0.01, 1).ok());
  EXPECT_FALSE(MakePerturbedSim("h100-sxm", {}, 0.3, 1).ok());
  EXPECT_FALSE(MakePerturbedSim("no-such-topology", {}, 0.03, 1).ok());
}

TEST(SimContention, CommSmsLostRoundsAndClamps) {
  EXPECT_EQ(sim::CommSmsLost(16, 1.0, 132), 16);
  EXPECT_EQ(sim::CommSmsLost(16, 1.2, 132), 19);  // 19.2
  EXPECT_EQ(sim::CommSmsLost(16, 0.8, 132), 13);  // 12.8
  EXPECT_EQ(sim::CommSmsLost(200, 1.0, 132), 131);
  EXPECT_EQ(sim::CommSmsLost(1, 0.2, 132), 0);
}

TEST(SimContention, DefaultIsBitIdenticalToThePlainBackend) {
  SimBackend plain(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm"));
  SimBackend one = WithContention(1.0);
  auto perturbed = MakePerturbedSim("h100-sxm", SimPerturbation{}, 0.0, 5);
  ASSERT_TRUE(perturbed.ok()) << perturbed.status().message();
  for (const Plan& plan : SomePlans()) {
    const int64_t t = Makespan(plain, plan);
    EXPECT_GT(t, 0);
    EXPECT_EQ(Makespan(one, plan), t) << plan.config.Describe() << " " << OpName(plan.workload.op);
    EXPECT_EQ(*(*perturbed)->TrueTimeNs(plan), t);
    const RunOutput a = *plain.Run(plan, Iters(2, true));
    const RunOutput b = *one.Run(plan, Iters(2, true));
    const RunOutput c = *(*perturbed)->Run(plan, Iters(2, true));
    EXPECT_EQ(a.iteration_ns, b.iteration_ns);
    EXPECT_EQ(a.iteration_ns, c.iteration_ns);
    ASSERT_EQ(a.events.size(), b.events.size());
    ASSERT_EQ(a.events.size(), c.events.size());
    for (size_t i = 0; i < a.events.size(); ++i) {
      EXPECT_EQ(a.events[i].start_ns, b.events[i].start_ns);
      EXPECT_EQ(a.events[i].end_ns, b.events[i].end_ns);
      EXPECT_EQ(a.events[i].start_ns, c.events[i].start_ns);
      EXPECT_EQ(a.events[i].end_ns, c.events[i].end_ns);
    }
  }
}

TEST(SimContention, SlowsOverlappedCommAndLeavesSerialAlone) {
  SimBackend base = WithContention(1.0);
  SimBackend more = WithContention(1.2);
  SimBackend less = WithContention(0.8);
  const Plan serial = MakePlan(Op::kGemmRs, Algorithm::kSerial);
  EXPECT_EQ(Makespan(more, serial), Makespan(base, serial));
  EXPECT_EQ(Makespan(less, serial), Makespan(base, serial));
  // The GEMM model is wave-quantized: losing 3 more SMs (16 × 1.2 = 19.2)
  // changes a GEMM's time only when it changes its wave count, so this shape
  // is one where it does (many shapes, e.g. 8192³ chunked 4, do not move).
  const Plan chunked = MakePlan(Op::kGemmRs, Algorithm::kChunked, 2, 16384, 12288, 28672);
  const int64_t t1 = Makespan(base, chunked), t12 = Makespan(more, chunked), t08 = Makespan(less, chunked);
  EXPECT_GT(t12, t1);
  EXPECT_LT(t08, t1);
  // The fused kernel's GEMM part loses more SMs too.
  const Plan fused = MakePlan(Op::kGemmRs, Algorithm::kFused, 1, 8192, 12288, 28672);
  EXPECT_GT(Makespan(more, fused), Makespan(base, fused));
  EXPECT_LT(Makespan(less, fused), Makespan(base, fused));
  // Refused when not a finite number >= 0.
  SimBackend bad = WithContention(-1);
  EXPECT_FALSE(bad.Evaluate(serial).ok());
}

TEST(SimPerturbation, LowerIntraBandwidthSlowsCommHeavyPlans) {
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  const Topology topo0 = *LoadTopology("h100-sxm");
  SimPerturbation p;
  p.intra_bandwidth = 0.8;
  Topology topo = topo0;
  ApplyPerturbation(p, nullptr, &topo);
  SimBackend base(gpu, topo0), slow(gpu, topo);
  // Skinny M: the reduce-scatter dominates.
  for (const Plan& plan : {MakePlan(Op::kGemmRs, Algorithm::kSerial, 1, 8192, 8192, 1024),
                           MakePlan(Op::kGemmRs, Algorithm::kChunked, 4, 8192, 8192, 1024)}) {
    EXPECT_GT(Makespan(slow, plan), Makespan(base, plan)) << plan.config.Describe();
  }
  // Through the factory: the same perturbation gives the same true time.
  auto made = MakePerturbedSim("h100-sxm", p, 0.0, 1);
  ASSERT_TRUE(made.ok());
  const Plan serial = MakePlan(Op::kGemmRs, Algorithm::kSerial, 1, 8192, 8192, 1024);
  EXPECT_EQ(*(*made)->TrueTimeNs(serial), Makespan(slow, serial));
  EXPECT_DOUBLE_EQ((*made)->topology().intra.bandwidth_gbs, topo.intra.bandwidth_gbs);
}

TEST(SimPerturbedBackend, SameSeedSameSamplesAndRunsDiffer) {
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kChunked, 4);
  const SimPerturbation p = RandomPerturbation(11);
  auto a = MakePerturbedSimBackend("h100-sxm", p, 0.03, 99);
  auto b = MakePerturbedSimBackend("h100-sxm", p, 0.03, 99);
  auto c = MakePerturbedSimBackend("h100-sxm", p, 0.03, 100);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ((*a)->name(), "sim");
  const RunOutput a1 = *(*a)->Run(plan, Iters(20));
  const RunOutput b1 = *(*b)->Run(plan, Iters(20));
  const RunOutput c1 = *(*c)->Run(plan, Iters(20));
  EXPECT_EQ(a1.iteration_ns, b1.iteration_ns);
  EXPECT_NE(a1.iteration_ns, c1.iteration_ns);
  // The stream advances per Run: a repeated measurement differs.
  const RunOutput a2 = *(*a)->Run(plan, Iters(20));
  EXPECT_NE(a1.iteration_ns, a2.iteration_ns);
  EXPECT_EQ(a2.iteration_ns, (*(*b)->Run(plan, Iters(20))).iteration_ns);
}

TEST(SimPerturbedBackend, NoiseHasTheRequestedSpreadAroundTheTrueTime) {
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kChunked, 4);
  auto made = MakePerturbedSim("h100-sxm", RandomPerturbation(3), 0.03, 17);
  ASSERT_TRUE(made.ok());
  PerturbedSimBackend& b = **made;
  const int64_t truth = *b.TrueTimeNs(plan);
  const std::vector<int64_t> t = (*b.Run(plan, Iters(200))).iteration_ns;
  ASSERT_EQ(t.size(), 200u);
  std::vector<double> rel;
  for (int64_t x : t) rel.push_back(double(x) / double(truth) - 1.0);
  const double mean = std::accumulate(rel.begin(), rel.end(), 0.0) / double(rel.size());
  double var = 0;
  for (double r : rel) var += (r - mean) * (r - mean);
  const double sd = std::sqrt(var / double(rel.size() - 1));
  EXPECT_GT(sd, 0.03 * 0.75);
  EXPECT_LT(sd, 0.03 * 1.25);
  EXPECT_LT(std::abs(mean), 0.01);
  std::vector<double> sorted = rel;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_LT(std::abs(sorted[100]), 0.01);  // median
  // Clamped at 4 sigma.
  EXPECT_GE(sorted.front(), -0.12 - 1e-6);
  EXPECT_LE(sorted.back(), 0.12 + 1e-6);
  for (int i = 0; i < 10000; ++i) {
    const double f = b.NextNoiseFactor();
    EXPECT_GE(f, 1 - 0.12 - 1e-12);
    EXPECT_LE(f, 1 + 0.12 + 1e-12);
  }
  // TrueTimeNs draws no noise and does not change.
  EXPECT_EQ(*b.TrueTimeNs(plan), truth);
}

TEST(SimPerturbedBackend, ZeroNoiseGivesTheTrueTime) {
  const Plan plan = MakePlan(Op::kAgGemm, Algorithm::kRing);
  auto made = MakePerturbedSim("h100-sxm", RandomPerturbation(4), 0.0, 1);
  ASSERT_TRUE(made.ok());
  const int64_t truth = *(*made)->TrueTimeNs(plan);
  const RunOutput out = *(*made)->Run(plan, Iters(5));
  for (int64_t x : out.iteration_ns) EXPECT_EQ(x, truth);
}

TEST(SimPerturbedBackend, EventsAgreeWithNoisyIterationTimes) {
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kChunked, 4);
  auto made = MakePerturbedSim("h100-sxm", RandomPerturbation(5), 0.05, 8);
  ASSERT_TRUE(made.ok());
  const int iters = 6;
  const RunOutput out = *(*made)->Run(plan, Iters(iters, true));
  ASSERT_EQ(out.iteration_ns.size(), size_t(iters));
  int64_t at = 0;
  for (int i = 0; i < iters; ++i) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const Event& e : out.events) {
      if (e.iteration != i) continue;
      EXPECT_LE(e.start_ns, e.end_ns);
      lo = std::min(lo, e.start_ns);
      hi = std::max(hi, e.end_ns);
    }
    EXPECT_GE(lo, at) << i;
    EXPECT_EQ(hi, at + out.iteration_ns[size_t(i)]) << i;
    at += out.iteration_ns[size_t(i)];
  }
  EXPECT_THAT(out.notes.back(), HasSubstr("perturbed sim"));
}

}  // namespace
}  // namespace sim_perturbation_test
}  // namespace braid
