// The plan checker must be able to fail (continued): plans whose steps race
// or whose output holds the wrong data — dropped, duplicated or misplaced
// reductions, reads of rows nothing wrote, the wrong block computed.
#include "braid/plan_check.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "braid/planner.h"
#include "plan_edits.h"

namespace braid {
namespace {

TEST(PlanCheck, DetectsMissingOutput) {
  Plan plan = TinyPlan();
  plan.ranks[0].steps.push_back(TinyGemm(0, 0, {}));
  plan.ranks[0].steps[0].c = Region::Rows(2, 0, 3);
  plan.ranks[0].steps[0].a = Region::Rows(0, 0, 3);
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 0 output 'C' row 3: expected the partial for row 3 over ranks {0}, found nothing");
}

TEST(PlanCheck, DetectsWriteWriteRaceAcrossLanes) {
  Plan plan = TinyPlan();
  plan.ranks[0].steps.push_back(TinyGemm(0, 0, {}));
  plan.ranks[0].steps.push_back(TinyGemm(1, 1, {}));
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "data race on rank 0 buffer 'C' rows 0..3");
  EXPECT_HAS(st, "step 0 (gemm) writes and step 1 (gemm) writes");
  // A dependency, or the same lane, orders them: no race.
  plan.ranks[0].steps[1].deps = {0};
  EXPECT_TRUE(CheckPlanSemantics(plan).ok()) << CheckPlanSemantics(plan).message();
  plan.ranks[0].steps[1].deps = {};
  plan.ranks[0].steps[1].lane = 0;
  EXPECT_TRUE(CheckPlanSemantics(plan).ok()) << CheckPlanSemantics(plan).message();
}

TEST(PlanCheck, DetectsReadWriteRaceOnPartlyOverlappingRows) {
  Plan plan = TinyPlan();
  RankPlan& rp = plan.ranks[0];
  rp.buffers.push_back({"W", 4, 4, BufferRole::kWorkspace, {}});
  rp.steps.push_back(TinyGemm(0, 0, {}));
  rp.steps[0].c = Region::Rows(3, 0, 4);  // W = A·B
  Step copy;
  copy.id = 1;
  copy.kind = StepKind::kCopy;
  copy.lane = 1;
  copy.name = "copy";
  copy.deps = {0};
  copy.a = Region::Rows(3, 0, 4);
  copy.c = Region::Rows(2, 0, 4);  // C = W
  rp.steps.push_back(copy);
  Step late = TinyGemm(2, 0, {});
  late.a = Region::Rows(0, 2, 2);
  late.c = Region::Rows(3, 2, 2);  // rewrites W rows 2..3 while the copy may read them
  rp.steps.push_back(late);
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "data race on rank 0 buffer 'W' rows 2..3: step 1 (copy) reads and step 2 (gemm) writes");
  rp.steps[2].deps = {1};
  EXPECT_TRUE(CheckPlanSemantics(plan).ok()) << CheckPlanSemantics(plan).message();
}

TEST(PlanCheck, DetectsDroppedReduce) {
  // ring gemm_rs P=4: rank 1 adds rank 0's partial of block 3 at ring step 1.
  // Without that add, rank 0's contribution never reaches rank 3's output.
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing, 1, 1);
  const int red = FindKind(plan.ranks[1], StepKind::kReduce, 1);
  ASSERT_GE(red, 0);
  RemoveStep(plan.ranks[1], red);
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st,
             "rank 3 output 'C' row 0: expected the partial for row 12 over ranks {0,1,2,3}, "
             "found the partial for row 12 over ranks {1,2,3} (missing a partial: ranks {0})");
}

TEST(PlanCheck, DetectsDroppedFinalReduce) {
  Plan plan = MustBuild(Op::kGemmAr, 16, 8, 8, 2, Algorithm::kRing, 1, 1);
  const int red = FindKind(plan.ranks[0], StepKind::kReduce, 1);
  ASSERT_GE(red, 0);
  RemoveStep(plan.ranks[0], red);
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  // The all-gather phase then forwards rank 0's own block before anything wrote it.
  EXPECT_HAS(st, "(send): reads empty row 0 of buffer 'C'");
}

TEST(PlanCheck, DetectsDuplicatedReduce) {
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing, 1, 1);
  RankPlan& rp = plan.ranks[2];
  const int red = FindKind(rp, StepKind::kReduce, 1);
  ASSERT_GE(red, 0);
  Step dup = rp.steps[size_t(red)];
  dup.deps = {red};
  InsertStep(rp, red + 1, dup);
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  // Rank 2 at step 1 adds rank 1's partial of block 0 (rows 0..3); the copy adds it again.
  EXPECT_HAS(st, "rank 2 step " + std::to_string(red + 1) +
                     " (add): partial for row 0 counted twice (ranks {1} on both sides)");
}

TEST(PlanCheck, DetectsAllReduceOfOverlappingPartials) {
  // chunked gemm_ar P=2: if rank 1 contributes a buffer that already holds
  // rank 0's partial, the all-reduce counts it twice.
  Plan plan = MustBuild(Op::kGemmAr, 8, 8, 8, 2, Algorithm::kChunked, 1, 1);
  for (int r = 0; r < 2; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    const int ar = FindKind(rp, StepKind::kCollective);
    Step second = rp.steps[size_t(ar)];
    second.match = 99;
    second.a = second.c;  // all-reduce the (already reduced) output again, in place
    second.deps = {ar};
    InsertStep(rp, ar + 1, second);
  }
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st,
             "(all_reduce): partial for row 0 counted twice (ranks {0,1} on both sides) summing "
             "rank 1's part");
}

TEST(PlanCheck, DetectsGemmReadingRowsBeforeTheirRecv) {
  // ring ag_gemm: the step-1 gemm multiplies the block that the step-0 recv
  // fills. Without that dependency (and on another lane) it may run first.
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 4, Algorithm::kRing, 1, 1);
  RankPlan& rp = plan.ranks[1];
  const int g = FindKind(rp, StepKind::kGemm, 1);
  const int rv = FindKind(rp, StepKind::kRecv, 0);
  ASSERT_GE(g, 0);
  ASSERT_EQ(rp.steps[size_t(g)].deps, std::vector<int>{rv});
  rp.steps[size_t(g)].deps.clear();
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  const std::string& msg = st.message();
  const bool race = msg.find("data race on rank 1 buffer 'A_full' rows 0..3: step " + std::to_string(rv) +
                             " (recv) writes and step " + std::to_string(g) + " (gemm) reads") != std::string::npos;
  const bool empty = msg.find("rank 1 step " + std::to_string(g) + " (gemm): reads empty row 0") != std::string::npos;
  EXPECT_TRUE(race || empty) << msg;
}

TEST(PlanCheck, DetectsReadsOfRowsNothingWrote) {
  // chunked ag_gemm without its all-gathers: other ranks' A rows never arrive.
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kChunked, 1, 1);
  for (RankPlan& rp : plan.ranks) RemoveStep(rp, FindKind(rp, StepKind::kCollective));
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 0 step 0 (gemm): reads empty row 8 of buffer 'A_full'");
}

TEST(PlanCheck, DetectsAgPlanComputingTheWrongBlock) {
  // ring ag_gemm P=4: rank 2's step-1 gemm should multiply block 1 (rows
  // 4..7); make it multiply its own block 2 again.
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 4, Algorithm::kRing, 1, 2);
  RankPlan& rp = plan.ranks[2];
  const int g = FindKind(rp, StepKind::kGemm, 1);
  ASSERT_EQ(rp.steps[size_t(g)].a.row, 4);
  rp.steps[size_t(g)].a.row = 8;
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 2 output 'C' row 4: expected the product for row 4, found the product for row 8");
}

TEST(PlanCheck, DetectsGemmOnNonInputRows) {
  // ring gemm_rs P=2 with N = K/P = 8, so the partial buffer has A_shard's
  // width: let rank 0's step-1 gemm multiply step 0's partial block instead
  // of A rows. The shapes fit; the contents do not.
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 16, 2, Algorithm::kRing, 1, 1);
  RankPlan& rp = plan.ranks[0];
  const int g0 = FindKind(rp, StepKind::kGemm, 0);
  const int g1 = FindKind(rp, StepKind::kGemm, 1);
  rp.steps[size_t(g1)].a = rp.steps[size_t(g0)].c;  // 'partial' rows 8..15
  rp.steps[size_t(g1)].deps = {g0};
  EXPECT_TRUE(CheckPlanStructure(plan).ok()) << CheckPlanStructure(plan).message();
  const Status st = CheckPlanSemantics(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 0 step " + std::to_string(g1) +
                     " (gemm): multiplies the partial for row 8 over ranks {0}, expected a row of A "
                     "(row 8 of buffer 'partial')");
}

}  // namespace
}  // namespace braid
