// Layer plans on the cpu backend: every GEMM op of the block reproduces its
// plain A·B, for every algorithm (iso included), and attention runs as
// compute steps with events.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "braid/cpu_backend.h"
#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "cpu_test_util.h"

namespace braid {
namespace cpu_layer_test {
namespace {

using testing::VerifyOnce;

Plan MustLayerPlan(int p, Algorithm algo, int chunks, bool sp, std::vector<int> splits = {},
                   Phase phase = Phase::kPrefill) {
  auto lw = MakeLayerWorkload(testing::TinyLayerModel(), 16, 1, phase, p, DType::kFp32, sp);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  if (!lw.ok()) return Plan();
  OverlapConfig cfg;
  cfg.algorithm = algo;
  cfg.chunks = chunks;
  cfg.comm_lanes = 2;
  cfg.splits = std::move(splits);
  auto plan = BuildLayerPlan(*lw, cfg);
  EXPECT_TRUE(plan.ok()) << lw->Describe() << " " << cfg.Describe() << ": " << plan.status().message();
  return plan.ok() ? std::move(plan).value() : Plan();
}

void ExpectVerifies(const Plan& plan) {
  CpuBackend cpu;
  Result<RunOutput> out = cpu.Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error;
  EXPECT_LE(out->verify.max_rel_error, 1e-5);
}

TEST(CpuLayer, EveryAlgorithmVerifiesEveryGemmOp) {
  for (int p : {1, 2, 4}) {
    for (bool sp : {true, false}) {
      for (auto [algo, chunks] : {std::pair{Algorithm::kSerial, 1},
                                  {Algorithm::kChunked, 2},
                                  {Algorithm::kRing, 2},
                                  {Algorithm::kBidirRing, 1}}) {
        const Plan plan = MustLayerPlan(p, algo, chunks, sp);
        SCOPED_TRACE(std::to_string(p) + " " + plan.config.Describe() + (sp ? " sp" : ""));
        ExpectVerifies(plan);
      }
      if (sp) {  // direct takes gemm_rs and ag_gemm, not gemm_ar
        SCOPED_TRACE("direct P=" + std::to_string(p));
        ExpectVerifies(MustLayerPlan(p, Algorithm::kDirect, 2, sp));
      }
    }
    SCOPED_TRACE("iso P=" + std::to_string(p));
    ExpectVerifies(MustLayerPlan(p, Algorithm::kIso, 2, false));
    ExpectVerifies(MustLayerPlan(p, Algorithm::kIso, 3, false, {1, 2, 3}));
  }
}

TEST(CpuLayer, DecodeVerifies) { ExpectVerifies(MustLayerPlan(2, Algorithm::kSerial, 1, false, {}, Phase::kDecode)); }

TEST(CpuLayer, AttentionRunsAsComputeEventsWithItsFlops) {
  const Plan plan = MustLayerPlan(2, Algorithm::kSerial, 1, true);
  CpuBackend cpu;
  RunOptions o = VerifyOnce();
  o.trace = true;
  Result<RunOutput> out = cpu.Run(plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  int attention = 0;
  for (const Event& e : out->events) {
    if (e.name != "attention") continue;
    ++attention;
    EXPECT_EQ(e.kind, EventKind::kCompute);
    EXPECT_GT(e.flops, 0);
  }
  EXPECT_EQ(attention, 2);  // one per rank
  bool noted = false;
  for (const std::string& n : out->notes) noted |= n.find("same FLOPs") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(CpuLayer, WrongOutputOfALaterOpFailsVerification) {
  Plan plan = MustLayerPlan(2, Algorithm::kSerial, 1, false);
  // out_proj's check reads fc2's output and vice versa (same shapes: M×hidden).
  ASSERT_EQ(plan.ranks[0].outputs.size(), 4u);
  std::swap(plan.ranks[0].outputs[1].buffer, plan.ranks[0].outputs[3].buffer);
  CpuBackend cpu;
  Result<RunOutput> out = cpu.Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ok);
}

}  // namespace
}  // namespace cpu_layer_test
}  // namespace braid
