// The plan checker must be able to fail: each test breaks a correct plan in
// one way and checks that the checker names the problem. Here: structure,
// send/recv and collective matching, and deadlocks; plan_content_check_test.cc
// has races and wrong data.
#include "braid/plan_check.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "braid/plan_graph.h"
#include "braid/planner.h"
#include "plan_edits.h"

namespace braid {
namespace {

TEST(PlanCheck, AcceptsHandBuiltPlan) {
  Plan plan = TinyPlan();
  plan.ranks[0].steps.push_back(TinyGemm(0, 0, {}));
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  EXPECT_TRUE(CheckPlanSemantics(plan).ok()) << CheckPlanSemantics(plan).message();
}

TEST(PlanCheck, DetectsForwardAndSelfDependencies) {
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing);
  plan.ranks[1].steps[0].deps.push_back(3);
  Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 1 step 0 (send): dependency 3 does not name an earlier step");
  plan.ranks[1].steps[0].deps = {0};
  st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "dependency 0 does not name an earlier step");
}

TEST(PlanCheck, DetectsMissingRecv) {
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing);
  const int rv = FindKind(plan.ranks[1], StepKind::kRecv);
  ASSERT_GE(rv, 0);
  RemoveStep(plan.ranks[1], rv);
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "(send): no matching recv on rank 1");
  EXPECT_FALSE(CheckPlanSemantics(plan).ok());
}

TEST(PlanCheck, DetectsMissingSend) {
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing);
  const int sd = FindKind(plan.ranks[2], StepKind::kSend);
  ASSERT_GE(sd, 0);
  RemoveStep(plan.ranks[2], sd);
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "(recv): no matching send on rank 2");
}

TEST(PlanCheck, DetectsWrongPeer) {
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing);
  const int sd = FindKind(plan.ranks[0], StepKind::kSend);
  plan.ranks[0].steps[size_t(sd)].peer = 2;  // the ring's successor of rank 0 is rank 1
  Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 0 step " + std::to_string(sd) + " (send): no matching recv on rank 2");

  plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing);
  const int rv = FindKind(plan.ranks[1], StepKind::kRecv);
  plan.ranks[1].steps[size_t(rv)].peer = 3;  // rank 1 receives from rank 0
  st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "no matching recv on rank 1");
  EXPECT_HAS(st, "has that match but names peer 3");

  plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing);
  plan.ranks[1].steps[size_t(rv)].peer = 7;
  st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "peer 7 is not a rank (P=4)");
}

TEST(PlanCheck, DetectsRecvSizeMismatch) {
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing);
  const int rv = FindKind(plan.ranks[0], StepKind::kRecv);
  plan.ranks[0].steps[size_t(rv)].c.rows -= 1;
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "sends 64 elements but its recv rank 0 step " + std::to_string(rv) + " (recv) takes 56 elements");
}

// The overload that hands its graph on (the sim backend's Run loads it): the
// graph of a plan that passes, and none after any failure — a per-rank
// error before the graph is built, a size error after it is.
TEST(PlanCheck, HandsOnTheGraphOfAPlanThatPassesAndNoneOfOneThatFails) {
  const Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing);
  PlanGraph graph;
  ASSERT_TRUE(CheckPlanStructure(plan, graph).ok());
  const Result<PlanGraph> fresh = PlanGraph::Build(plan);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(graph.steps(), int(plan.total_steps()));
  ASSERT_EQ(graph.order().size(), fresh->order().size());
  for (int g = 0; g < graph.steps(); ++g) {
    EXPECT_EQ(graph.partner(g), fresh->partner(g));
    EXPECT_EQ(graph.in_degree(g), fresh->in_degree(g));
    EXPECT_EQ(graph.order()[size_t(g)], fresh->order()[size_t(g)]);
  }

  Plan outside = plan;  // per-rank rule: checked before the graph
  outside.ranks[1].steps[size_t(FindKind(outside.ranks[1], StepKind::kGemm))].c.row = 15;
  EXPECT_FALSE(CheckPlanStructure(outside, graph).ok());
  EXPECT_EQ(graph.steps(), 0);

  ASSERT_TRUE(CheckPlanStructure(plan, graph).ok());
  Plan sizes = plan;  // matched sizes: checked after the graph
  sizes.ranks[0].steps[size_t(FindKind(sizes.ranks[0], StepKind::kRecv))].c.rows -= 1;
  const Status st = CheckPlanStructure(sizes, graph);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "takes 56 elements");
  EXPECT_EQ(graph.steps(), 0);
  EXPECT_EQ(graph.ranks(), 0);
}

TEST(PlanCheck, DetectsDuplicateMatch) {
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing, 2);
  RankPlan& rp = plan.ranks[0];
  const int first = FindKind(rp, StepKind::kSend);
  const int second = Find(rp, [&](const Step& s) { return s.kind == StepKind::kSend && s.id > first; });
  ASSERT_GE(second, 0);
  rp.steps[size_t(second)].match = rp.steps[size_t(first)].match;
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "a second send to rank 1 with match");
}

TEST(PlanCheck, DetectsRegionOutsideBufferBadLaneAndShapes) {
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 2, Algorithm::kRing);
  const int g = FindKind(plan.ranks[1], StepKind::kGemm);
  Plan bad = plan;
  bad.ranks[1].steps[size_t(g)].c.row = 14;  // 8 rows at 14 in a 16-row buffer
  Status st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 1 step " + std::to_string(g) +
                     " (gemm): region c 'partial' rows 14+8 lies outside the buffer (16 rows)");

  bad = plan;
  bad.ranks[1].steps[size_t(g)].lane = 9;
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "lane 9 does not exist");

  bad = plan;
  bad.ranks[1].steps[size_t(g)].c.rows = 4;
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "a has 8 rows but c has 4");

  bad = plan;
  bad.ranks[1].steps[size_t(g)].b.rows = 2;
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "b must be the whole B buffer");

  bad = plan;
  bad.ranks.pop_back();
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "plan has 1 ranks but its workload has P=2");

  bad = plan;
  const int red = FindKind(bad.ranks[0], StepKind::kReduce);
  ASSERT_GE(red, 0);
  bad.ranks[0].steps[size_t(red)].b.rows = 2;
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "(add): b is 2x8 but c is 8x8");
}

TEST(PlanCheck, DetectsStridedRegionsOutsideOrOverlapping) {
  // chunked gemm_rs: the reduce-scatter reads 4 pieces of 2 rows, stride 8.
  const Plan plan = MustBuild(Op::kGemmRs, 32, 8, 8, 4, Algorithm::kChunked, 4, 1);
  const int rs = FindKind(plan.ranks[0], StepKind::kCollective);
  ASSERT_EQ(plan.ranks[0].steps[size_t(rs)].a.stride, 8);
  Plan bad = plan;
  bad.ranks[0].steps[size_t(rs)].a.stride = 10;  // last piece at 30..31 still fits
  EXPECT_TRUE(CheckPlanStructure(bad).ok()) << CheckPlanStructure(bad).message();
  bad.ranks[0].steps[size_t(rs)].a.stride = 11;  // last piece at 33..34 does not
  Status st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 0 step " + std::to_string(rs) +
                     " (reduce_scatter): region a 'partial' rows 0+2 x4 stride 11 lies outside the "
                     "buffer (32 rows)");
  bad.ranks[0].steps[size_t(rs)].a.stride = 1;
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "has overlapping or descending pieces");
}

TEST(PlanCheck, DetectsDeadlockFromLaneOrder) {
  // ring ag_gemm, one comm lane: every rank sends then receives. Receiving
  // first on every rank waits forever.
  Plan plan = MustBuild(Op::kAgGemm, 24, 12, 8, 3, Algorithm::kRing, 1, 1);
  for (RankPlan& rp : plan.ranks) {
    ASSERT_EQ(rp.steps[0].kind, StepKind::kSend);
    ASSERT_EQ(rp.steps[1].kind, StepKind::kRecv);
    ASSERT_EQ(rp.steps[0].lane, rp.steps[1].lane);
    SwapWithNext(rp, 0);
  }
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "plan can deadlock");
  EXPECT_HAS(st, "(recv) -> rank");
  EXPECT_HAS(st, "(send) -> rank");
  EXPECT_FALSE(CheckPlanSemantics(plan).ok());

  // With two comm lanes the recv sits on its own lane and the swap is harmless.
  plan = MustBuild(Op::kAgGemm, 24, 12, 8, 3, Algorithm::kRing, 1, 2);
  for (RankPlan& rp : plan.ranks) {
    ASSERT_NE(rp.steps[0].lane, rp.steps[1].lane);
    SwapWithNext(rp, 0);
  }
  EXPECT_TRUE(CheckPlanSemantics(plan).ok()) << CheckPlanSemantics(plan).message();
}

TEST(PlanCheck, DetectsHandBuiltSendRecvCycle) {
  Plan plan;
  plan.workload = {Op::kGemmRs, 4, 4, 4, DType::kFp32, 2};
  plan.lanes = {{"compute", LaneKind::kCompute, 0}, {"comm0", LaneKind::kComm, 1}};
  plan.ranks.resize(2);
  for (int r = 0; r < 2; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    rp.buffers.push_back({"X", 4, 4, BufferRole::kOutput, {}});
    rp.output = 0;
    rp.output_window = {0, 4, 0, 4};
    Step rv;
    rv.id = 0;
    rv.kind = StepKind::kRecv;
    rv.lane = 1;
    rv.name = "recv";
    rv.c = Region::Rows(0, 0, 2);
    rv.peer = 1 - r;
    rv.match = 1 - r;
    Step sd;
    sd.id = 1;
    sd.kind = StepKind::kSend;
    sd.lane = 1;
    sd.name = "send";
    sd.a = Region::Rows(0, 2, 2);
    sd.peer = 1 - r;
    sd.match = r;
    rp.steps = {rv, sd};
  }
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "plan can deadlock: 4 steps never become ready; cycle: ");
  EXPECT_HAS(st,
             "rank 0 step 1 (send) -> rank 1 step 0 (recv) -> rank 1 step 1 (send) -> rank 0 step "
             "0 (recv)");
}

TEST(PlanCheck, DetectsCollectivesIssuedInDifferentOrders) {
  // chunked ag_gemm, one comm lane: rank 0 runs all-gather 0 then 1; if rank
  // 1 runs 1 then 0, each waits for the other.
  Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kChunked, 2, 1);
  RankPlan& rp = plan.ranks[1];
  const int c0 = FindKind(rp, StepKind::kCollective);
  const int c1 = Find(rp, [&](const Step& s) { return s.kind == StepKind::kCollective && s.id > c0; });
  ASSERT_GE(c1, 0);
  ASSERT_EQ(rp.steps[size_t(c0)].lane, rp.steps[size_t(c1)].lane);
  std::swap(rp.steps[size_t(c0)].match, rp.steps[size_t(c1)].match);
  const Status st = CheckPlanStructure(plan);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "plan can deadlock");
  EXPECT_HAS(st, "collective all_gather match 0 (all ranks)");
}

TEST(PlanCheck, DetectsMissingOrMismatchedCollective) {
  Plan plan = MustBuild(Op::kGemmRs, 32, 8, 8, 4, Algorithm::kChunked, 2, 2);
  Plan bad = plan;
  const int c = FindKind(bad.ranks[3], StepKind::kCollective);
  RemoveStep(bad.ranks[3], c);
  Status st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "is missing on rank 3");

  bad = plan;
  bad.ranks[2].steps[size_t(c)].collective = CollectiveKind::kAllReduce;
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "rank 2 step 1 (reduce_scatter): a is 16x8 but c is 4x8");

  bad = plan;
  bad.ranks[2].steps[size_t(c)].match = 7;  // match 0 now lacks rank 2, match 7 has only rank 2
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "collective reduce_scatter match 0 (rank 0 step 1 (reduce_scatter)) is missing on rank 2");

  bad = plan;
  bad.ranks[1].steps[size_t(c)].a.pieces = 2;  // reduce_scatter needs P pieces
  st = CheckPlanStructure(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st, "reduce_scatter needs a = 4 pieces");
}

}  // namespace
}  // namespace braid
