// The fused kernel on the sim backend: all ranks run it together; comm SMs
// move tiles while the rest compute, so it beats serial when the two are
// comparable; more comm SMs speed the transfers and slow the GEMM; each fused
// step yields a GEMM event and a comm event that overlap; deterministic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "braid/gpu_files.h"
#include "braid/layer_workload.h"
#include "braid/metrics.h"
#include "braid/model_files.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid {
namespace sim_fused_test {
namespace {

// The model's mechanics with the kernel's GEMM at its bound (efficiency 1.0,
// what a good fused kernel reaches); the shipped files carry the rate
// measured on an H200 (0.0046), tested below.
SimBackend H100Backend() {
  GpuSpec gpu = *LoadGpu("h100-sxm");
  gpu.fused_gemm_efficiency = 1.0;
  return SimBackend(gpu, *LoadTopology("h100-sxm"));
}

Plan MakePlan(Op op, Algorithm algo, int comm_sms = 0, int64_t m = 8192, int64_t n = 8192, int64_t k = 8192) {
  Workload w{op, m, n, k, DType::kBf16, 8};
  OverlapConfig c;
  c.algorithm = algo;
  c.comm_sms = comm_sms;
  auto p = BuildPlan(w, c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : Plan();
}

RunOutput MustRun(SimBackend& b, const Plan& plan, int iters = 1) {
  RunOptions o;
  o.warmup = 0;
  o.iters = iters;
  auto out = b.Run(plan, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : RunOutput{};
}

int64_t Makespan(SimBackend& b, const Plan& plan) {
  auto t = b.Evaluate(plan);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : 0;
}

TEST(SimFused, BeatsSerialWhenComputeAndCommAreComparable) {
  SimBackend b = H100Backend();
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    // A short, wide-K ag_gemm / wide-N gemm_rs: comm and GEMM of a similar size.
    const Plan serial = MakePlan(op, Algorithm::kSerial, 0, 4096, 8192, 8192);
    const Plan fused = MakePlan(op, Algorithm::kFused, 0, 4096, 8192, 8192);
    const int64_t ts = Makespan(b, serial), tf = Makespan(b, fused);
    EXPECT_LT(tf, ts) << "op " << OpName(op) << ": fused " << tf << " ns vs serial " << ts << " ns";
  }
}

TEST(SimFused, MoreCommSmsMakeCommFasterAndGemmSlower) {
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  const Topology topo = *LoadTopology("h100-sxm");
  const int64_t bytes = int64_t(7) * 1024 * 8192 * 2;
  sim::FusedTime prev;
  for (int sms : {4, 8, 16}) {
    const sim::FusedTime t =
        sim::FusedKernelTime(gpu, topo, 8192, 1024, 8192, DType::kBf16, CollectiveKind::kReduceScatter, bytes, 8, sms);
    if (sms > 4) {
      EXPECT_LT(t.comm_ns, prev.comm_ns) << sms;
      EXPECT_GE(t.gemm_ns, prev.gemm_ns) << sms;  // waves: equal or slower
    }
    EXPECT_DOUBLE_EQ(t.total_ns, std::max(t.gemm_ns, t.comm_ns + t.wave_ns));
    prev = t;
  }
  const auto few =
      sim::FusedKernelTime(gpu, topo, 8192, 1024, 8192, DType::kBf16, CollectiveKind::kReduceScatter, bytes, 8, 4);
  const auto many =
      sim::FusedKernelTime(gpu, topo, 8192, 1024, 8192, DType::kBf16, CollectiveKind::kReduceScatter, bytes, 8, 64);
  EXPECT_GT(many.gemm_ns, few.gemm_ns);
  EXPECT_LT(many.comm_ns, few.comm_ns);
  // Past the channel count that saturates the link, comm stops improving.
  const int channels = sim::CommSms(topo, 0);
  const auto at = sim::FusedKernelTime(gpu, topo, 8192, 1024, 8192, DType::kBf16, CollectiveKind::kReduceScatter, bytes,
                                       8, channels);
  const auto past = sim::FusedKernelTime(gpu, topo, 8192, 1024, 8192, DType::kBf16, CollectiveKind::kReduceScatter,
                                         bytes, 8, channels * 2);
  EXPECT_DOUBLE_EQ(at.comm_ns, past.comm_ns);
  EXPECT_GE(past.gemm_ns, at.gemm_ns);

  // The same through the engine's events.
  SimBackend b = H100Backend();
  auto comm_of = [&](int sms, const char* name) {
    const RunOutput out = MustRun(b, MakePlan(Op::kAgGemm, Algorithm::kFused, sms));
    for (const Event& e : out.events) {
      if (e.rank == 0 && e.name == name) return e.end_ns - e.start_ns;
    }
    ADD_FAILURE() << "no " << name << " event";
    return int64_t(0);
  };
  EXPECT_LT(comm_of(16, "fused_comm"), comm_of(4, "fused_comm"));
  EXPECT_GT(comm_of(64, "fused_gemm"), comm_of(8, "fused_gemm"));
}

// An all-gather GEMM's tiles wait for their block of rows: once the last
// block lands (comm's end), its tiles, a P-th of the GEMM, still run. At
// P 2 that is half the GEMM, several waves; one wave (what a reduce-scatter
// leaves after its last partial) would promise a comm-bound kernel too much.
TEST(SimFused, AnAllGathersLastBlockOfTilesRunsAfterItLands) {
  GpuSpec gpu = *LoadGpu("h100-sxm");
  gpu.fused_gemm_efficiency = 1.0;
  const Topology topo = *LoadTopology("h100-sxm");
  const int64_t bytes = int64_t(4096) * 8192 * 2;  // the peer's half of A
  // Two comm SMs: the transfers take longer than the GEMM.
  const sim::FusedTime ag =
      sim::FusedKernelTime(gpu, topo, 8192, 4096, 8192, DType::kBf16, CollectiveKind::kAllGather, bytes, 2, 2);
  ASSERT_GT(ag.comm_ns, ag.gemm_ns);
  ASSERT_GT(ag.gemm_ns / 2, 2 * ag.wave_ns) << "half the GEMM is several waves";
  EXPECT_DOUBLE_EQ(ag.total_ns, ag.comm_ns + ag.gemm_ns / 2);
  const sim::FusedTime rs =
      sim::FusedKernelTime(gpu, topo, 8192, 4096, 8192, DType::kBf16, CollectiveKind::kReduceScatter, bytes, 2, 2);
  EXPECT_DOUBLE_EQ(rs.total_ns, std::max(rs.gemm_ns, rs.comm_ns + rs.wave_ns));
  // At P 8 a block's tiles are under a wave: the tail is that wave.
  const sim::FusedTime p8 = sim::FusedKernelTime(gpu, topo, 8192, 1024, 8192, DType::kBf16, CollectiveKind::kAllGather,
                                                 int64_t(7) * 1024 * 8192 * 2, 8, 2);
  ASSERT_LT(p8.gemm_ns / 8, p8.wave_ns);
  EXPECT_DOUBLE_EQ(p8.total_ns, std::max(p8.gemm_ns, p8.comm_ns + p8.wave_ns));
}
TEST(SimFused, TwoOverlappingEventsPerStepPerIteration) {
  SimBackend b = H100Backend();
  const Plan plan = MakePlan(Op::kGemmRs, Algorithm::kFused);
  const RunOutput out = MustRun(b, plan, 3);
  ASSERT_EQ(out.events.size(), size_t(3 * 8 * 2));
  for (const Event& e : out.events) {
    EXPECT_LE(e.start_ns, e.end_ns);
    if (e.name == "fused_gemm") {
      EXPECT_EQ(e.kind, EventKind::kCompute);
      EXPECT_EQ(e.lane, 0);
    } else {
      EXPECT_EQ(e.name, "fused_comm");
      EXPECT_EQ(e.kind, EventKind::kComm);
      EXPECT_EQ(e.lane, 1);
      EXPECT_GT(e.bytes, 0);
    }
  }
  const RunMetrics m = ComputeRunMetrics(out.events);
  EXPECT_GT(m.overall[Metric::kOverlapRatio].p50, 0.0);
  EXPECT_GT(m.overall[Metric::kOverlap].p50, 0.0);
  // The step ends at the later of its two parts: the iteration's end.
  for (int it = 0; it < 3; ++it) {
    int64_t last = 0;
    for (const Event& e : out.events) {
      if (e.iteration == it) last = std::max(last, e.end_ns);
    }
    EXPECT_EQ(last, (it + 1) * out.iteration_ns[0]);
  }
}

TEST(SimFused, IsDeterministic) {
  SimBackend b1 = H100Backend(), b2 = H100Backend();
  const Plan plan = MakePlan(Op::kAgGemm, Algorithm::kFused, 24);
  const RunOutput x = MustRun(b1, plan, 2), y = MustRun(b2, plan, 2);
  ASSERT_EQ(x.events.size(), y.events.size());
  for (size_t i = 0; i < x.events.size(); ++i) {
    EXPECT_EQ(x.events[i].start_ns, y.events[i].start_ns);
    EXPECT_EQ(x.events[i].end_ns, y.events[i].end_ns);
  }
  EXPECT_EQ(Makespan(b1, plan), Makespan(b1, plan));
}

TEST(SimFused, CommSmsMustLeaveSmsForTheGemm) {
  SimBackend b = H100Backend();
  auto t = b.Evaluate(MakePlan(Op::kAgGemm, Algorithm::kFused, 132));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("leaves no SMs"), std::string::npos) << t.status().message();
}

TEST(SimFused, Llama70bPrefillLayerRuns) {
  auto model = LoadModel("llama3-70b");
  ASSERT_TRUE(model.ok());
  auto lw = MakeLayerWorkload(*model, 4096, 1, Phase::kPrefill, 8, DType::kBf16, true);
  ASSERT_TRUE(lw.ok());
  OverlapConfig serial, fused;
  fused.algorithm = Algorithm::kFused;
  auto ps = BuildLayerPlan(*lw, serial);
  auto pf = BuildLayerPlan(*lw, fused);
  ASSERT_TRUE(ps.ok() && pf.ok());
  SimBackend b = H100Backend();
  const RunOutput out = MustRun(b, *pf);
  EXPECT_GT(ComputeRunMetrics(out.events).overall[Metric::kOverlapRatio].p50, 0.0);
  EXPECT_LT(Makespan(b, *pf), Makespan(b, *ps));
}

}  // namespace
}  // namespace sim_fused_test
}  // namespace braid

namespace braid {
namespace sim_fused_test {
namespace {

// Its two figures come from the GPU file: the shipped ones say what they are,
// a slower GEMM loop stretches the GEMM part exactly, and a slower comm CTA
// stretches the transfers.
TEST(SimFusedParameters, ComeFromTheGpuFile) {
  GpuSpec g = *LoadGpu("h100-sxm");
  const Topology t = *LoadTopology("h100-sxm");
  EXPECT_DOUBLE_EQ(g.fused_gemm_efficiency, 0.0046);  // measured on an H200 (presets/measured/h200)
  EXPECT_DOUBLE_EQ(g.fused_sm_transfer_gbs, 15.4125);
  g.fused_gemm_efficiency = 1.0;
  const int64_t send = int64_t(1024) * 8192 * 2 * 7;  // 7 peers' blocks of a 8192-row gemm_rs
  const sim::FusedTime base =
      sim::FusedKernelTime(g, t, 8192, 8192, 8192, DType::kBf16, CollectiveKind::kReduceScatter, send, 8, 8);
  g.fused_gemm_efficiency = 0.5;
  const sim::FusedTime slow_gemm =
      sim::FusedKernelTime(g, t, 8192, 8192, 8192, DType::kBf16, CollectiveKind::kReduceScatter, send, 8, 8);
  EXPECT_DOUBLE_EQ(slow_gemm.gemm_ns, 2 * base.gemm_ns);
  EXPECT_DOUBLE_EQ(slow_gemm.comm_ns, base.comm_ns);
  g.fused_gemm_efficiency = 1.0;
  g.fused_sm_transfer_gbs = 2.0;
  const sim::FusedTime slow_comm =
      sim::FusedKernelTime(g, t, 8192, 8192, 8192, DType::kBf16, CollectiveKind::kReduceScatter, send, 8, 8);
  EXPECT_GT(slow_comm.comm_ns, 2 * base.comm_ns);
  EXPECT_DOUBLE_EQ(slow_comm.gemm_ns, base.gemm_ns);
  // Every shipped GPU names both.
  for (const std::string& name : BuiltinGpuNames()) {
    auto gpu = LoadGpu(name);
    ASSERT_TRUE(gpu.ok()) << name;
    EXPECT_GT(gpu->fused_sm_transfer_gbs, 0) << name;
    EXPECT_LE(gpu->fused_gemm_efficiency, 1.0) << name;
  }
}

// As measured on the H200: the shipped kernel's GEMM is so slow that fused
// loses to serial at 8192^3 (287-337 ms against 1.3-1.5 ms for cuBLASLt).
TEST(SimFusedParameters, TheShippedKernelLosesToSerialAsMeasured) {
  SimBackend shipped(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm"));
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const int64_t ts = Makespan(shipped, MakePlan(op, Algorithm::kSerial));
    const int64_t tf = Makespan(shipped, MakePlan(op, Algorithm::kFused));
    EXPECT_GT(tf, 50 * ts) << OpName(op);
  }
}

TEST(SimFusedParameters, AnEfficiencyAboveOneIsRefused) {
  const std::string text = R"(name = "toy"
sm_count = 4
tflops_bf16 = 10.0
tflops_fp16 = 10.0
tflops_fp32 = 5.0
hbm_gbs = 100.0
hbm_efficiency = 0.8
tile_m = 128
tile_n = 128
efficiency_bf16 = 0.7
efficiency_fp16 = 0.7
efficiency_fp32 = 0.7
launch_us = 3.0
event_wait_us = 1.0
copy_engines = 2
source = "a test"
)";
  ASSERT_TRUE(ParseGpuToml(text, "toy.toml").ok());
  auto fast = ParseGpuToml(text + "fused_gemm_efficiency = 1.2\n", "toy.toml");
  ASSERT_FALSE(fast.ok());
  EXPECT_THAT(fast.status().message(), ::testing::HasSubstr("toy.toml:17:"));
  EXPECT_THAT(fast.status().message(), ::testing::HasSubstr("fused_gemm_efficiency"));
  auto negative = ParseGpuToml(text + "fused_sm_transfer_gbs = -1\n", "toy.toml");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), ::testing::HasSubstr("fused_sm_transfer_gbs"));
}

}  // namespace
}  // namespace sim_fused_test
}  // namespace braid
