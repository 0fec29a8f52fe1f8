// A training step on the cpu backend verifies every rank's forward outputs,
// dX and dW against one reference forward and backward of the block, and a
// rank that computes from the wrong tensor of the block fails.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

#include "block_model.h"
#include "braid/cpu_backend.h"
#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using testing::OpIndex;
using testing::VerifyOnce;

Plan MustTrainPlan(int p, Algorithm algo, int chunks = 1) {
  return testing::MustBlockPlan(testing::BlockModel(), Phase::kTrain, p, algo, true, chunks);
}

bool HasNote(const RunOutput& out, std::string_view text) {
  for (const std::string& n : out.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(CpuTrainVerify, EveryRankMatchesOneReferenceForwardAndBackward) {
  for (int p : {2, 3, 4}) {
    for (auto [algo, chunks] : {std::pair{Algorithm::kSerial, 1},
                                {Algorithm::kBulk, 1},
                                {Algorithm::kRing, 1},
                                {Algorithm::kBidirRing, 1},
                                {Algorithm::kChunked, 2}}) {
      const Plan plan = MustTrainPlan(p, algo, chunks);
      SCOPED_TRACE("P=" + std::to_string(p) + " " + plan.config.Describe());
      Result<RunOutput> out = CpuBackend().Run(plan, VerifyOnce());
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_TRUE(out->verify.ran);
      EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error;
      EXPECT_LE(out->verify.max_rel_error, 1e-5);
      EXPECT_TRUE(HasNote(*out, "one fp32 reference forward and backward of the block"));
      EXPECT_TRUE(HasNote(*out, "links between linears: 2 forward, 2 backward"));
    }
  }
}

TEST(CpuTrainVerify, WithoutVerifyThereIsNoBlockNote) {
  RunOptions o = VerifyOnce();
  o.verify = false;
  Result<RunOutput> out = CpuBackend().Run(MustTrainPlan(2, Algorithm::kSerial), o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ran);
  EXPECT_FALSE(HasNote(*out, "reference forward"));
}

// Rank 1's input buffers of `op` that load `matrix` load it from `from`'s
// instead: the same shape, another tensor of the block.
void LoadFrom(Plan& plan, std::string_view op, Matrix matrix, std::string_view from) {
  const int target = OpIndex(plan, op), source = OpIndex(plan, from);
  int moved = 0;
  for (BufferDecl& d : plan.ranks[1].buffers) {
    if (d.role != BufferRole::kInput || d.op != target || d.input.matrix != matrix) continue;
    d.op = source;
    ++moved;
  }
  EXPECT_GT(moved, 0) << op;
}

void ExpectFails(const Plan& plan) {
  Result<RunOutput> out = CpuBackend().Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_FALSE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error;
  EXPECT_GT(out->verify.max_rel_error, 1e-2);
}

// Each corruption leaves rank 1 a plausible tensor of the block, so only a
// check against the chained reference catches it.
TEST(CpuTrainVerify, ARankComputingFromTheWrongTensorFails) {
  for (Algorithm algo : {Algorithm::kSerial, Algorithm::kBulk, Algorithm::kRing}) {
    SCOPED_TRACE(std::string(AlgorithmName(algo)));
    {  // fc1.wgrad on qkv's X: x without the attention branch's residual
      Plan plan = MustTrainPlan(3, algo);
      LoadFrom(plan, "fc1.wgrad", Matrix::kA, "qkv.wgrad");
      ExpectFails(plan);
    }
    {  // out_proj.dgrad on dOut alone: the residual without fc1's dX
      Plan plan = MustTrainPlan(3, algo);
      LoadFrom(plan, "out_proj.dgrad", Matrix::kA, "fc2.dgrad");
      ExpectFails(plan);
    }
    // out_proj.wgrad on dOutᵀ alone (a ring's external wgrad reads the dY its
    // dgrad gathered, which the case above corrupts).
    if (algo != Algorithm::kRing) {
      Plan plan = MustTrainPlan(3, algo);
      LoadFrom(plan, "out_proj.wgrad", Matrix::kA, "fc2.wgrad");
      ExpectFails(plan);
    }
  }
}

// A corrupted dgrad output: rank 1's qkv.dgrad and fc1.dgrad blocks (both
// T/P × hidden) swapped.
TEST(CpuTrainVerify, SwappedDgradOutputsFail) {
  Plan plan = MustTrainPlan(2, Algorithm::kBulk);
  const int qkv = OpIndex(plan, "qkv.dgrad"), fc1 = OpIndex(plan, "fc1.dgrad");
  OpOutput *a = nullptr, *b = nullptr;
  for (OpOutput& o : plan.ranks[1].outputs) {
    if (o.op == qkv) a = &o;
    if (o.op == fc1) b = &o;
  }
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::swap(a->buffer, b->buffer);
  ExpectFails(plan);
}

}  // namespace
}  // namespace braid
