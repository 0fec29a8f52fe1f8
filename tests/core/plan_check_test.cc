// The plan checker must be able to fail: each test breaks a correct plan in
// one way and checks that the checker names the problem.
#include "braid/plan_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "braid/planner.h"

namespace braid {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

Plan MustBuild(Op op, int64_t m, int64_t n, int64_t k, int p, Algorithm algo, int chunks = 1, int lanes = 1) {
  Workload w{op, m, n, k, DType::kBf16, p};
  OverlapConfig cfg;
  cfg.algorithm = algo;
  cfg.chunks = chunks;
  cfg.comm_lanes = lanes;
  Result<Plan> plan = BuildPlan(w, cfg);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return Plan{};
  EXPECT_TRUE(CheckPlanSemantics(*plan).ok()) << CheckPlanSemantics(*plan).message();
  return std::move(plan).value();
}

// First step on the rank for which `pred` holds; -1 if none.
int Find(const RankPlan& rp, const std::function<bool(const Step&)>& pred) {
  for (const Step& s : rp.steps) {
    if (pred(s)) return s.id;
  }
  return -1;
}

int FindKind(const RankPlan& rp, StepKind kind, int ring_step = -2) {
  return Find(rp, [&](const Step& s) { return s.kind == kind && (ring_step == -2 || s.ring_step == ring_step); });
}

// Removes a step; steps that depended on it inherit its dependencies.
void RemoveStep(RankPlan& rp, int id) {
  const std::vector<int> inherited = rp.steps[size_t(id)].deps;
  rp.steps.erase(rp.steps.begin() + id);
  for (Step& s : rp.steps) {
    if (s.id > id) --s.id;
    std::vector<int> deps;
    for (int d : s.deps) {
      if (d == id) {
        deps.insert(deps.end(), inherited.begin(), inherited.end());
      } else {
        deps.push_back(d > id ? d - 1 : d);
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    s.deps = std::move(deps);
  }
}

// Inserts `s` as step `pos`; later steps move up by one.
void InsertStep(RankPlan& rp, int pos, Step s) {
  for (Step& t : rp.steps) {
    if (t.id >= pos) ++t.id;
    for (int& d : t.deps) {
      if (d >= pos) ++d;
    }
  }
  s.id = pos;
  rp.steps.insert(rp.steps.begin() + pos, std::move(s));
}

// Swaps steps id and id+1 (id+1 must not depend on id).
void SwapWithNext(RankPlan& rp, int id) {
  std::swap(rp.steps[size_t(id)], rp.steps[size_t(id) + 1]);
  rp.steps[size_t(id)].id = id;
  rp.steps[size_t(id) + 1].id = id + 1;
  for (Step& s : rp.steps) {
    for (int& d : s.deps) {
      if (d == id) {
        d = id + 1;
      } else if (d == id + 1) {
        d = id;
      }
    }
  }
}

// A one-rank plan by hand: C (4x4) = A (4x4) · B (4x4), gemm_rs with P=1.
Plan TinyPlan() {
  Plan plan;
  plan.workload = {Op::kGemmRs, 4, 4, 4, DType::kFp32, 1};
  plan.lanes = {{"compute", LaneKind::kCompute, 0}, {"comm0", LaneKind::kComm, 1}};
  plan.ranks.resize(1);
  RankPlan& rp = plan.ranks[0];
  rp.buffers.push_back({"A", 4, 4, BufferRole::kInput, {Matrix::kA, 0, 4, 0, 4, 0}});
  rp.buffers.push_back({"B", 4, 4, BufferRole::kInput, {Matrix::kB, 0, 4, 0, 4, 0}});
  rp.buffers.push_back({"C", 4, 4, BufferRole::kOutput, {}});
  rp.output = 2;
  rp.output_window = {0, 4, 0, 4};
  return plan;
}

Step TinyGemm(int id, int lane, std::vector<int> deps) {
  Step s;
  s.id = id;
  s.kind = StepKind::kGemm;
  s.lane = lane;
  s.name = "gemm";
  s.deps = std::move(deps);
  s.a = Region::Rows(0, 0, 4);
  s.b = Region::Rows(1, 0, 4);
  s.c = Region::Rows(2, 0, 4);
  return s;
}

TEST(PlanCheck, AcceptsHandBuiltPlan) {
  Plan plan = TinyPlan();
  plan.ranks[0].steps.push_back(TinyGemm(0, 0, {}));
  EXPECT_TRUE(CheckPlanStructure(plan).ok());
  EXPECT_TRUE(CheckPlanSemantics(plan).ok()) << CheckPlanSemantics(plan).message();
}

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
