// Ulysses all-to-alls (a2a, a2a_direct) on the cpu backend, ranks as
// threads: every rank loads the whole replicated B (one input buffer per
// block) and its own A window, and the outputs must reproduce the plain A·B
// windows of ag_gemm and gemm_rs; a whole Ulysses block (the two
// projections' all-to-alls, attention, the MLP on each rank's rows) verifies
// against one reference forward of the block.
#include <gtest/gtest.h>

#include <string>

#include "block_model.h"
#include "braid/cpu_backend.h"
#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::VerifyOnce;

constexpr Algorithm kUlysses[] = {Algorithm::kA2a, Algorithm::kA2aDirect};

Result<RunOutput> RunOnCpu(const Plan& plan) { return CpuBackend().Run(plan, VerifyOnce()); }

void ExpectVerified(const Result<RunOutput>& out) {
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error << " on rank " << out->verify.worst_rank;
  EXPECT_LE(out->verify.max_rel_error, 1e-5);
}

TEST(CpuUlysses, BothOpsAndBothAlgorithmsVerifyOnTwoAndFourRanks) {
  int verified = 0;
  for (Algorithm algo : kUlysses) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (int p : {2, 4}) {
        for (int chunks : {1, 2}) {
          if (algo == Algorithm::kA2a && chunks != 1) continue;  // the baseline moves whole blocks
          for (int lanes : {1, 2}) {
            // N/P and K/P unequal to the other sizes, so that a block of the
            // wrong shape or place cannot pass by symmetry.
            const Plan plan = MustBuild(op, int64_t(p) * chunks * 3, 6 * p, 5 * p, p, algo, chunks, lanes);
            SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
            ASSERT_EQ(plan.tp(), p);
            ExpectVerified(RunOnCpu(plan));
            if (!::testing::Test::HasFailure()) ++verified;
          }
        }
      }
    }
  }
  EXPECT_EQ(verified, 2 * 2 * 2 * (1 + 2));  // ops × P × lanes × (a2a: 1 chunk count, a2a_direct: 2)
}

TEST(CpuUlysses, AUlyssesBlockVerifiesOnTwoAndFourRanks) {
  int verified = 0;
  for (Algorithm algo : kUlysses) {
    for (int p : {2, 4}) {
      for (int chunks : {1, 2}) {
        if (algo == Algorithm::kA2a && chunks != 1) continue;
        Result<LayerWorkload> lw =
            MakeUlyssesLayerWorkload(testing::BlockModel(), 24, 2, Phase::kPrefill, p, DType::kFp32);
        ASSERT_TRUE(lw.ok()) << lw.status().message();
        OverlapConfig cfg;
        cfg.algorithm = algo;
        cfg.chunks = chunks;
        cfg.comm_lanes = 2;
        Result<Plan> plan = BuildLayerPlan(*lw, cfg);
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        SCOPED_TRACE(lw->Describe() + " " + cfg.Describe());
        ExpectVerified(RunOnCpu(*plan));
        if (!::testing::Test::HasFailure()) ++verified;
      }
    }
  }
  EXPECT_EQ(verified, 2 * (1 + 2));  // P × (a2a, a2a_direct at 1 and 2 sub-chunks)
}

// The MLP's rows are the rank's own: a rank that reports its fc1 output as
// another rank's rows fails verification.
TEST(CpuUlysses, AnMlpOutputAtTheWrongRowsIsCaught) {
  Result<LayerWorkload> lw = MakeUlyssesLayerWorkload(testing::BlockModel(), 24, 1, Phase::kPrefill, 2, DType::kFp32);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kA2aDirect;
  Result<Plan> plan = BuildLayerPlan(*lw, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const int fc1 = testing::OpIndex(*plan, "fc1");
  for (OpOutput& o : plan->ranks[1].outputs) {
    if (o.op == fc1) o.window.row0 = 0;
  }
  Result<RunOutput> out = RunOnCpu(*plan);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ok);
}

// Verification can fail: a GEMM that multiplies a peer's block by the wrong
// block of the replicated B gives a large error on that rank.
TEST(CpuUlysses, TheWrongBlockOfBIsCaught) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    Plan plan = MustBuild(op, 16, 12, 8, 4, Algorithm::kA2aDirect, 1, 2);
    RankPlan& rp = plan.ranks[1];
    Step* peer_gemm = nullptr;
    for (Step& s : rp.steps) {
      if (s.kind == StepKind::kGemm && (s.c.buffer != rp.output || s.accumulate)) peer_gemm = &s;
    }
    ASSERT_NE(peer_gemm, nullptr);
    for (size_t b = 0; b < rp.buffers.size(); ++b) {
      const BufferDecl& d = rp.buffers[b];
      if (d.role == BufferRole::kInput && d.input.matrix == Matrix::kB && BufferId(b) != peer_gemm->b.buffer) {
        peer_gemm->b.buffer = BufferId(b);
        break;
      }
    }
    Result<RunOutput> out = RunOnCpu(plan);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ran);
    EXPECT_FALSE(out->verify.ok) << OpName(op);
    EXPECT_GT(out->verify.max_rel_error, 0.05) << OpName(op);
  }
}

// FP8: gemm_rs's all-to-all moves rows of the cast A, one FP8 byte a value
// under A's tensor scale and bit-exact; ag_gemm's moves finished products in
// the output dtype. Both reproduce the product of the cast inputs.
TEST(CpuUlysses, Fp8MovesAExactlyAndProductsInTheOutputDtype) {
  for (Algorithm algo : kUlysses) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      const Plan plan = MustBuild(op, 32, 16, 16, 4, algo, 1, 2, {}, DType::kFp8E4m3);
      SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
      Result<RunOutput> out = RunOnCpu(plan);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
      EXPECT_LE(out->verify.max_rel_error, 1e-5);
      const std::string moves = op == Op::kGemmRs ? "all-to-alls of A move one fp8_e4m3 byte a value under A's tensor"
                                                  : "all-to-alls of products (bf16 requested) move fp32";
      bool noted = false;
      for (const std::string& n : out->notes) noted = noted || n.find(moves) != std::string::npos;
      EXPECT_TRUE(noted) << moves;
    }
  }
}

}  // namespace
}  // namespace braid
