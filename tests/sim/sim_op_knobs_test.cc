// Each op of a block at its own knobs (Plan::op_knobs): the sim charges an
// op's comm SMs, engine and margin from the op's own config, not from the
// run's, and a collective's speed follows the SMs it is given.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/op_metrics.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid {
namespace {

SimBackend H100() { return SimBackend(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm")); }

LayerWorkload Block(Phase phase) {
  auto m = LoadModel("llama3-70b");
  EXPECT_TRUE(m.ok()) << m.status().message();
  auto lw = MakeLayerWorkload(*m, 4096, 1, phase, 8, DType::kBf16, true);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return *lw;
}

OverlapConfig Chunked(int comm_sms, bool margin = false) {
  OverlapConfig c;
  c.algorithm = Algorithm::kChunked;
  c.chunks = 4;
  c.comm_sms = comm_sms;
  c.sm_margin = margin;
  return c;
}

// Each op's time (worst rank, p50) of one simulated iteration.
std::map<std::string, double> OpTimes(const LayerWorkload& lw) {
  auto plan = BuildLayerPlan(lw, OverlapConfig{});
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return {};
  SimBackend sim = H100();
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  auto out = sim.Run(*plan, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  std::vector<std::string> names;
  for (const PlanOp& op : plan->ops) names.push_back(op.name);
  OpMetricsBuilder b(names);
  b.Add(out->events);
  const std::vector<OpFigures> f = b.Finish();
  std::map<std::string, double> times;
  for (size_t i = 0; i < names.size(); ++i) times[names[i]] = f[i].time_ns;
  times["block"] = double(out->events.empty() ? 0 : out->events.back().end_ns);
  return times;
}

// The test: out_proj and fc2 (both gemm_rs) with different comm
// SMs, the run's own config serial. A sim that read the run's config for
// every op gave both the same budget (and, here, no overlap at all).
TEST(SimOpKnobs, EachOpsCommSmsSetItsOwnTime) {
  LayerWorkload few = Block(Phase::kPrefill), many = few;
  for (LayerWorkload* lw : {&few, &many}) {
    for (LayerOp& op : lw->ops) {
      if (op.kind == LayerOpKind::kTpGemm && op.gemm.op == Op::kGemmRs) op.config = Chunked(16);
    }
  }
  for (LayerOp& op : few.ops) {
    if (op.name == "out_proj") op.config = Chunked(2);
  }
  const auto a = OpTimes(few), b = OpTimes(many);
  // Two SMs move out_proj's reduce-scatter at a fraction of the link.
  EXPECT_GT(a.at("out_proj"), 1.3 * b.at("out_proj"));
  // fc2 kept its 16 SMs: the same time in both blocks.
  EXPECT_NEAR(a.at("fc2"), b.at("fc2"), 1e-6 * b.at("fc2"));
}

TEST(SimOpKnobs, EachOpsEngineIsItsOwn) {
  LayerWorkload sm = Block(Phase::kPrefill), ce = sm;
  OverlapConfig ring;
  ring.algorithm = Algorithm::kRing;
  ring.comm_sms = 8;
  for (LayerOp& op : sm.ops) {
    if (op.name == "qkv") op.config = ring;
  }
  ring.comm_engine = CommEngine::kCopyEngine;
  for (LayerOp& op : ce.ops) {
    if (op.name == "qkv") op.config = ring;
  }
  const auto a = OpTimes(sm), b = OpTimes(ce);
  EXPECT_NE(a.at("qkv"), b.at("qkv"));
  EXPECT_NEAR(a.at("fc1"), b.at("fc1"), 1e-6 * b.at("fc1"));  // fc1: the run's (serial) in both
}

// TE's set_sm_margin: the GEMM on the SMs the comm leaves, for its whole run.
TEST(SimOpKnobs, AMarginSlowsTheGemmsOfItsOwnOpOnly) {
  LayerWorkload plain = Block(Phase::kPrefill), margin = plain;
  for (LayerOp& op : plain.ops) {
    if (op.name == "out_proj") op.config = Chunked(32);
  }
  for (LayerOp& op : margin.ops) {
    if (op.name == "out_proj") op.config = Chunked(32, true);
  }
  const auto a = OpTimes(plain), b = OpTimes(margin);
  EXPECT_NE(a.at("out_proj"), b.at("out_proj"));
  EXPECT_NEAR(a.at("qkv"), b.at("qkv"), 1e-6 * a.at("qkv"));
}

// A collective's bandwidth follows its SMs up to the link: the copy-kernel
// curve (CopyBandwidthGbs / 2 per byte moved) below, the ring's Simple rate
// above.
TEST(SimOpKnobs, ACollectivesSpeedFollowsItsSmsUpToTheLink) {
  auto gpu = LoadGpu("h100-sxm");
  auto topo = LoadTopology("h100-sxm");
  ASSERT_TRUE(gpu.ok() && topo.ok());
  const int64_t bytes = int64_t(8192) * 8192 * 2;
  double last = 0;
  for (int sms : {32, 16, 8, 4, 2, 1}) {
    const sim::CommTime t = sim::CollectiveTimeOnSms(*gpu, *topo, CollectiveKind::kReduceScatter, bytes, 8, sms);
    EXPECT_GE(t.total_ns(), last) << sms;
    last = t.total_ns();
  }
  const sim::CommTime link = sim::CollectiveTime(*topo, CollectiveKind::kReduceScatter, bytes, 8);
  EXPECT_DOUBLE_EQ(sim::CollectiveTimeOnSms(*gpu, *topo, CollectiveKind::kReduceScatter, bytes, 8, 24).total_ns(),
                   link.total_ns());  // the topology's NCCL channels fill the link
  EXPECT_DOUBLE_EQ(sim::CollectiveTimeOnSms(*gpu, *topo, CollectiveKind::kReduceScatter, bytes, 8, 0).total_ns(),
                   link.total_ns());  // a copy-engine collective: no SM pacing
  // One SM moves what one SM copies: (P-1)/P of the bytes at CopyBandwidthGbs(1)/2.
  const sim::CommTime one = sim::CollectiveTimeOnSms(*gpu, *topo, CollectiveKind::kReduceScatter, bytes, 8, 1);
  EXPECT_NEAR(one.transfer_ns, double(bytes) * 7 / 8 / (sim::CopyBandwidthGbs(*gpu, 1) / 2), 0.01 * one.transfer_ns);
}

// A chunked gemm_ar on one H100 node: its large all-reduces run as NVLS, on
// NCCL's 16 NVLS CTAs, so the GEMM chunks beside them keep 8 more SMs than
// beside a 24-channel ring. The same plan with NVLS on 24 channels is slower.
TEST(SimOpKnobs, NvlsAllReduceHoldsItsOwnChannelsBesideTheGemm) {
  Workload w;
  w.op = Op::kGemmAr;
  w.m = 16384, w.n = 8192, w.k = 8192 * 8, w.tp = 8;
  auto plan = BuildPlan(w, Chunked(0));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  Topology topo = *LoadTopology("h100-sxm");
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  ASSERT_EQ(topo.intra.nvls_channels, 16);
  ASSERT_EQ(sim::ChooseCollective(gpu, topo, CollectiveKind::kAllReduce, w.m * w.n / 4 * 2, 8, 0).algo,
            sim::CollectiveAlgo::kNvls);
  SimBackend on16(gpu, topo);
  auto t16 = on16.Evaluate(*plan);
  ASSERT_TRUE(t16.ok()) << t16.status().message();
  topo.intra.nvls_channels = 24;
  SimBackend on24(gpu, topo);
  auto t24 = on24.Evaluate(*plan);
  ASSERT_TRUE(t24.ok()) << t24.status().message();
  EXPECT_LT(*t16, *t24);
}

}  // namespace
}  // namespace braid
