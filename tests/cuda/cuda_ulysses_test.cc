// Ulysses all-to-alls (a2a, a2a_direct) through the cuda backend's
// orchestration on the fakes: both projections' ops on SMs and on the copy
// engine, and a whole Ulysses block, reproduce the unsharded products on
// every rank (the replicated B loaded whole, the MLP on each rank's rows).
#include <gtest/gtest.h>

#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using testing::CudaTinyModel;
using testing::CudaVerifyOnce;
using testing::RunOnFake;

constexpr Algorithm kUlysses[] = {Algorithm::kA2a, Algorithm::kA2aDirect};

void ExpectVerifies(const Plan& plan) {
  Result<RunOutput> out = RunOnFake(plan, CudaVerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error << " on rank " << out->verify.worst_rank;
}

TEST(CudaUlysses, BothOpsVerifyOnSmsAndTheCopyEngine) {
  int verified = 0;
  for (Algorithm algo : kUlysses) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (int p : {2, 4}) {
        for (CommEngine engine : {CommEngine::kSm, CommEngine::kCopyEngine}) {
          OverlapConfig c;
          c.algorithm = algo;
          c.comm_engine = engine;
          c.comm_lanes = 2;
          const Workload w{op, 6 * int64_t(p), 4 * int64_t(p), 2 * int64_t(p), DType::kBf16, p};
          Result<Plan> plan = BuildPlan(w, c);
          ASSERT_TRUE(plan.ok()) << plan.status().message();
          SCOPED_TRACE(w.Describe() + " " + c.Describe());
          ExpectVerifies(*plan);
          if (!::testing::Test::HasFailure()) ++verified;
        }
      }
    }
  }
  EXPECT_EQ(verified, 2 * 2 * 2 * 2);
}

TEST(CudaUlysses, AUlyssesBlockVerifies) {
  for (Algorithm algo : kUlysses) {
    for (int p : {2, 4}) {
      Result<LayerWorkload> lw = MakeUlyssesLayerWorkload(CudaTinyModel(), 16, 1, Phase::kPrefill, p, DType::kBf16);
      ASSERT_TRUE(lw.ok()) << lw.status().message();
      OverlapConfig c;
      c.algorithm = algo;
      c.comm_lanes = 2;
      Result<Plan> plan = BuildLayerPlan(*lw, c);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      SCOPED_TRACE(lw->Describe() + " " + c.Describe());
      ExpectVerifies(*plan);
    }
  }
}

}  // namespace
}  // namespace braid
