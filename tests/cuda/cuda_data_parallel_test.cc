// A block's data-parallel ops (braid/data_parallel.h) through the cuda
// backend's orchestration on the fakes: gradient reduce-scatters and
// all-reduces and ZeRO's weight gathers, serial and decomposed, over NCCL and
// the copy engine, reproduce the unsharded product on every DP rank.
#include <gtest/gtest.h>

#include "braid/data_parallel.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using testing::CudaTinyModel;
using testing::CudaVerifyOnce;
using testing::RunOnFake;

TEST(CudaDataParallel, EveryDpOpVerifiesSerialAndDecomposed) {
  int verified = 0;
  for (int dp : {2, 4}) {
    Result<LayerWorkload> train = MakeLayerWorkload(CudaTinyModel(), 16, 1, Phase::kTrain, 2, DType::kBf16);
    ASSERT_TRUE(train.ok()) << train.status().message();
    for (ZeroStage zero : {ZeroStage::kNone, ZeroStage::k3}) {
      Result<std::vector<DpOp>> ops = MakeDpOps(*train, dp, zero);
      ASSERT_TRUE(ops.ok()) << ops.status().message();
      for (const DpOp& op : *ops) {
        for (Algorithm algo : {Algorithm::kSerial, Algorithm::kRing, Algorithm::kDirect}) {
          if (algo == Algorithm::kDirect && op.gemm.op == Op::kGemmAr) continue;
          for (CommEngine engine : {CommEngine::kSm, CommEngine::kCopyEngine}) {
            OverlapConfig c;
            c.algorithm = algo;
            c.comm_engine = engine;
            Result<Plan> plan = BuildPlan(op.gemm, c);
            ASSERT_TRUE(plan.ok()) << op.name << ": " << plan.status().message();
            SCOPED_TRACE(op.name + " " + op.gemm.Describe() + " " + c.Describe());
            Result<RunOutput> out = RunOnFake(*plan, CudaVerifyOnce());
            ASSERT_TRUE(out.ok()) << out.status().message();
            EXPECT_TRUE(out->verify.ran);
            EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error;
            if (!::testing::Test::HasFailure()) ++verified;
          }
        }
      }
    }
  }
  // Per DP size: 4 all-reduces × 2 algorithms + 8 ZeRO-3 ops × 3, each on 2 engines.
  EXPECT_EQ(verified, 2 * (4 * 2 + 8 * 3) * 2);
}

}  // namespace
}  // namespace braid
