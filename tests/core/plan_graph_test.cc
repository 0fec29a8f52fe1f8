// The plan graph: partners, collective groups, dependents, order, the cycle
// that prevents an order, and the errors for plans it cannot build.
#include "braid/plan_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "braid/planner.h"

namespace braid {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

Plan MustBuild(Op op, int p, Algorithm algo, int chunks = 1, int lanes = 1) {
  Workload w{op, 48 * int64_t(p), 8 * int64_t(p), 8 * int64_t(p), DType::kBf16, p};
  OverlapConfig cfg;
  cfg.algorithm = algo;
  cfg.chunks = chunks;
  cfg.comm_lanes = lanes;
  Result<Plan> plan = BuildPlan(w, cfg);
  EXPECT_TRUE(plan.ok()) << AlgorithmName(algo) << " " << OpName(op) << " P=" << p << ": " << plan.status().message();
  return plan.ok() ? std::move(plan).value() : Plan{};
}

PlanGraph MustGraph(const Plan& plan) {
  Result<PlanGraph> g = PlanGraph::Build(plan);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(g).value() : PlanGraph{};
}

const Step& StepAt(const Plan& plan, const PlanGraph& g, int global) {
  return plan.ranks[size_t(g.rank_of(global))].steps[size_t(g.id_of(global))];
}

// Two ranks, hand-built: each rank has a compute lane (0) and a comm lane (1).
Plan TwoRankPlan() {
  Plan plan;
  plan.workload = {Op::kGemmRs, 4, 4, 4, DType::kFp32, 2};
  plan.lanes = {{"compute", LaneKind::kCompute, 0}, {"comm0", LaneKind::kComm, 1}};
  plan.ranks.resize(2);
  return plan;
}

Step MakeStep(int id, StepKind kind, int lane, std::vector<int> deps, std::string name) {
  Step s;
  s.id = id;
  s.kind = kind;
  s.lane = lane;
  s.deps = std::move(deps);
  s.name = std::move(name);
  return s;
}

Step Transfer(int id, StepKind kind, int lane, std::vector<int> deps, int peer, int64_t match) {
  Step s = MakeStep(id, kind, lane, std::move(deps), kind == StepKind::kSend ? "send" : "recv");
  s.peer = peer;
  s.match = match;
  return s;
}

TEST(PlanGraph, NumbersStepsRankAfterRank) {
  const Plan plan = MustBuild(Op::kAgGemm, 3, Algorithm::kRing);
  const PlanGraph g = MustGraph(plan);
  ASSERT_EQ(g.ranks(), 3);
  EXPECT_EQ(size_t(g.steps()), plan.total_steps());
  for (int r = 0; r < 3; ++r) {
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      const int global = g.global(r, s.id);
      EXPECT_EQ(global, g.first_step(r) + s.id);
      EXPECT_EQ(g.rank_of(global), r);
      EXPECT_EQ(g.id_of(global), s.id);
    }
  }
}

TEST(PlanGraph, PairsEverySendWithTheRecvOfItsPeerAndMatch) {
  const Plan plan = MustBuild(Op::kGemmRs, 4, Algorithm::kRing, 2, 2);
  const PlanGraph g = MustGraph(plan);
  int sends = 0;
  for (int x = 0; x < g.steps(); ++x) {
    const Step& s = StepAt(plan, g, x);
    if (s.kind != StepKind::kSend && s.kind != StepKind::kRecv) {
      EXPECT_EQ(g.partner(x), -1) << s.name;
      continue;
    }
    const int y = g.partner(x);
    ASSERT_GE(y, 0) << "rank " << g.rank_of(x) << " step " << s.id;
    EXPECT_EQ(g.partner(y), x);
    const Step& t = StepAt(plan, g, y);
    EXPECT_NE(t.kind, s.kind);
    EXPECT_EQ(t.match, s.match);
    EXPECT_EQ(g.rank_of(y), s.peer);
    EXPECT_EQ(t.peer, g.rank_of(x));
    sends += s.kind == StepKind::kSend;
  }
  EXPECT_EQ(sends, 4 * 3 * 2);  // P ranks x (P-1) ring steps x 2 sub-chunks
}

TEST(PlanGraph, GroupsEachCollectiveAcrossRanksInMatchOrder) {
  const Plan plan = MustBuild(Op::kGemmRs, 4, Algorithm::kChunked, 3, 2);
  const PlanGraph g = MustGraph(plan);
  ASSERT_EQ(g.groups(), 3);
  int64_t last_match = -1;
  for (int c = 0; c < g.groups(); ++c) {
    const auto members = g.group_members(c);
    ASSERT_EQ(members.size(), 4u);
    const int64_t match = StepAt(plan, g, members[0]).match;
    EXPECT_GT(match, last_match);
    last_match = match;
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(g.rank_of(members[size_t(r)]), r);
      EXPECT_EQ(g.group_of(members[size_t(r)]), c);
      EXPECT_EQ(StepAt(plan, g, members[size_t(r)]).kind, StepKind::kCollective);
      EXPECT_EQ(StepAt(plan, g, members[size_t(r)]).match, match);
    }
  }
  for (int x = 0; x < g.steps(); ++x) {
    if (StepAt(plan, g, x).kind != StepKind::kCollective) {
      EXPECT_EQ(g.group_of(x), -1);
    }
  }
}

TEST(PlanGraph, GroupsFusedKernels) {
  const Plan plan = MustBuild(Op::kAgGemm, 2, Algorithm::kFused);
  const PlanGraph g = MustGraph(plan);
  ASSERT_EQ(g.groups(), 1);
  EXPECT_EQ(StepAt(plan, g, g.group_members(0)[0]).kind, StepKind::kFused);
  EXPECT_EQ(g.rank_of(g.group_members(0)[1]), 1);
}

TEST(PlanGraph, DependentsFollowDepsAndLaneOrder) {
  // Rank 0: 0 gemm (lane 0); 1 send (lane 1, after 0); 2 gemm (lane 0, deps
  // {0}: also its lane predecessor); 3 gemm (lane 1, deps {0, 2}).
  // Rank 1: 0 recv (lane 1); 1 gemm (lane 0, deps {0}).
  Plan plan = TwoRankPlan();
  plan.ranks[0].steps = {MakeStep(0, StepKind::kCompute, 0, {}, "a"), Transfer(1, StepKind::kSend, 1, {0}, 1, 7),
                         MakeStep(2, StepKind::kCompute, 0, {0}, "b"), MakeStep(3, StepKind::kCompute, 1, {0, 2}, "c")};
  plan.ranks[1].steps = {Transfer(0, StepKind::kRecv, 1, {}, 0, 7), MakeStep(1, StepKind::kCompute, 0, {0}, "d")};
  const PlanGraph g = MustGraph(plan);
  auto list = [&](int x) {
    const auto d = g.dependents(x);
    return std::vector<int>(d.begin(), d.end());
  };
  // Step 2 names 0 as a dep and follows it on lane 0: listed twice.
  EXPECT_EQ(list(0), (std::vector<int>{1, 2, 2, 3}));
  EXPECT_EQ(list(1), (std::vector<int>{3}));  // lane 1 successor
  EXPECT_EQ(list(2), (std::vector<int>{3}));
  EXPECT_TRUE(list(3).empty());
  EXPECT_EQ(list(4), (std::vector<int>{5}));
  EXPECT_EQ(g.in_degree(0), 0);
  EXPECT_EQ(g.in_degree(1), 1);
  EXPECT_EQ(g.in_degree(2), 2);
  EXPECT_EQ(g.in_degree(3), 3);  // deps 0 and 2, lane predecessor 1
  EXPECT_EQ(g.in_degree(4), 0);  // a recv waits for its send through partner(), not in_degree
  EXPECT_EQ(g.cross_lane_deps(3), 2);
  EXPECT_EQ(g.cross_lane_deps(2), 0);
  EXPECT_EQ(g.cross_lane_deps(5), 1);
  EXPECT_EQ(g.partner(1), 4);
}

// Every step exactly once, after its deps, its lane predecessor and (a recv)
// its send; a group's members adjacent in rank order.
void ExpectValidOrder(const Plan& plan, const PlanGraph& g) {
  const auto order = g.order();
  ASSERT_EQ(order.size(), size_t(g.steps()));
  std::vector<int> pos(size_t(g.steps()), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(pos[size_t(order[i])], -1) << "step listed twice";
    pos[size_t(order[i])] = int(i);
  }
  for (int x = 0; x < g.steps(); ++x) {
    for (int d : g.dependents(x)) {
      EXPECT_LT(pos[size_t(x)], pos[size_t(d)]);
    }
    if (StepAt(plan, g, x).kind == StepKind::kRecv) {
      EXPECT_LT(pos[size_t(g.partner(x))], pos[size_t(x)]);
    }
  }
  for (int c = 0; c < g.groups(); ++c) {
    const auto members = g.group_members(c);
    for (size_t r = 1; r < members.size(); ++r) EXPECT_EQ(pos[size_t(members[r])], pos[size_t(members[0])] + int(r));
  }
}

TEST(PlanGraph, OrderPutsEveryStepAfterWhatItWaitsFor) {
  for (Algorithm algo :
       {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kFused}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
      if (algo == Algorithm::kFused && op == Op::kGemmAr) continue;
      SCOPED_TRACE(std::string(AlgorithmName(algo)) + " " + std::string(OpName(op)));
      const int chunks = algo == Algorithm::kSerial || algo == Algorithm::kFused ? 1 : 2;
      const Plan plan = MustBuild(op, 4, algo, chunks, 2);
      ExpectValidOrder(plan, MustGraph(plan));
    }
  }
}

TEST(PlanGraph, ReportsTheCycleThatPreventsAnOrder) {
  // Each rank receives before it sends, on one lane: every recv waits for a
  // send that waits for it.
  Plan plan = TwoRankPlan();
  for (int r = 0; r < 2; ++r) {
    plan.ranks[size_t(r)].steps = {Transfer(0, StepKind::kRecv, 1, {}, 1 - r, 1 - r),
                                   Transfer(1, StepKind::kSend, 1, {}, 1 - r, r)};
  }
  Result<PlanGraph> g = PlanGraph::Build(plan);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_HAS(g.status(),
             "plan can deadlock: 4 steps never become ready; cycle: rank 0 step 1 (send) -> rank 1 step 0 (recv) -> "
             "rank 1 step 1 (send) -> rank 0 step 0 (recv) -> rank 0 step 1 (send)");
  // Without an order the graph still builds (the sim finds stuck steps itself).
  Result<PlanGraph> unordered = PlanGraph::Build(plan, PlanGraphOptions{.order = false});
  ASSERT_TRUE(unordered.ok()) << unordered.status().message();
  EXPECT_TRUE(unordered->order().empty());
  EXPECT_EQ(unordered->partner(1), 2);
  // Sending first on one rank breaks the cycle.
  std::swap(plan.ranks[0].steps[0], plan.ranks[0].steps[1]);
  plan.ranks[0].steps[0].id = 0;
  plan.ranks[0].steps[1].id = 1;
  g = PlanGraph::Build(plan);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectValidOrder(plan, *g);
}

TEST(PlanGraph, NamesACollectiveCycleAsOneNode) {
  // Two all-gathers issued in opposite orders on one lane.
  Plan plan = MustBuild(Op::kAgGemm, 2, Algorithm::kChunked, 2, 1);
  RankPlan& rp = plan.ranks[1];
  std::vector<int> colls;
  for (const Step& s : rp.steps) {
    if (s.kind == StepKind::kCollective) colls.push_back(s.id);
  }
  ASSERT_EQ(colls.size(), 2u);
  std::swap(rp.steps[size_t(colls[0])].match, rp.steps[size_t(colls[1])].match);
  Result<PlanGraph> g = PlanGraph::Build(plan);
  ASSERT_FALSE(g.ok());
  // The two groups and the four GEMMs behind them never become ready.
  EXPECT_HAS(g.status(),
             "plan can deadlock: 6 steps never become ready; cycle: collective all_gather match 1 (all ranks) -> "
             "collective all_gather match 0 (all ranks) -> collective all_gather match 1 (all ranks)");
}

// One broken rule at a time: Build refuses with the checker's wording.
TEST(PlanGraph, RefusesMalformedPlans) {
  const Plan good = MustBuild(Op::kGemmRs, 4, Algorithm::kRing, 1, 2);
  ASSERT_TRUE(PlanGraph::Build(good).ok());
  auto first_of = [](const RankPlan& rp, StepKind kind) {
    for (const Step& s : rp.steps) {
      if (s.kind == kind) return s.id;
    }
    return -1;
  };
  auto refused = [](const Plan& plan) {
    Result<PlanGraph> g = PlanGraph::Build(plan);
    EXPECT_FALSE(g.ok());
    if (!g.ok()) {
      EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
    }
    return g.ok() ? Status::Ok() : g.status();
  };
  Plan bad;
  EXPECT_HAS(refused(bad), "plan has no ranks");

  bad = good;
  bad.ranks[1].steps[2].id = 5;
  EXPECT_HAS(refused(bad), "rank 1 step at index 2 has id 5");

  bad = good;
  bad.ranks[2].steps[3].deps.push_back(3);
  EXPECT_HAS(refused(bad), "rank 2 step 3 (" + good.ranks[2].steps[3].name +
                               "): dependency 3 does not name an earlier step of the rank");

  bad = good;
  bad.ranks[0].steps[1].lane = 7;
  EXPECT_HAS(refused(bad), "lane 7 does not exist (3 lanes)");

  const int send = first_of(good.ranks[0], StepKind::kSend);
  ASSERT_GE(send, 0);
  bad = good;
  bad.ranks[0].steps[size_t(send)].peer = 4;
  EXPECT_HAS(refused(bad), "peer 4 is not a rank (P=4)");

  bad = good;
  bad.ranks[0].steps[size_t(send)].peer = 2;
  EXPECT_HAS(refused(bad), "rank 0 step " + std::to_string(send) + " (send): no matching recv on rank 2");

  bad = good;
  bad.ranks[0].steps[size_t(send)].match = 999;
  EXPECT_HAS(refused(bad), "(send): no matching recv on rank 1 (match 999)");

  bad = good;
  Step twice = bad.ranks[0].steps[size_t(send)];
  twice.id = int(bad.ranks[0].steps.size());
  twice.deps = {};
  bad.ranks[0].steps.push_back(twice);
  EXPECT_HAS(refused(bad), "a second send to rank 1 with match");

  const Plan chunked = MustBuild(Op::kGemmRs, 4, Algorithm::kChunked, 2, 2);
  const int coll = first_of(chunked.ranks[3], StepKind::kCollective);
  ASSERT_GE(coll, 0);
  bad = chunked;
  bad.ranks[3].steps[size_t(coll)].match = 42;
  EXPECT_HAS(refused(bad), "is missing on rank 3");

  bad = chunked;
  bad.ranks[2].steps[size_t(coll)].collective = CollectiveKind::kAllReduce;
  EXPECT_HAS(refused(bad), "rank 2 step " + std::to_string(coll) + " (reduce_scatter): collective match");
  EXPECT_HAS(refused(bad), "is all_reduce here but reduce_scatter on rank 0");

  bad = chunked;
  bad.ranks[1].steps[size_t(coll)].kind = StepKind::kFused;
  EXPECT_HAS(refused(bad), "is a fused step here but a collective step on rank 0");

  bad = chunked;
  const int second = first_of(chunked.ranks[1], StepKind::kCollective);
  Step again = bad.ranks[1].steps[size_t(second)];
  again.id = int(bad.ranks[1].steps.size());
  again.deps = {};
  bad.ranks[1].steps.push_back(again);
  EXPECT_HAS(refused(bad), "appears twice on the rank (also step " + std::to_string(second) + ")");
}

TEST(PlanGraph, RebuildEmptiesOnErrorAndRecovers) {
  const Plan good = MustBuild(Op::kAgGemm, 4, Algorithm::kChunked, 2, 2);
  PlanGraph g;
  ASSERT_TRUE(g.Rebuild(good).ok());
  const int steps = g.steps(), groups = g.groups();
  EXPECT_EQ(size_t(steps), good.total_steps());

  Plan bad = good;
  bad.ranks[2].steps.back().deps = {-1};
  EXPECT_FALSE(g.Rebuild(bad).ok());
  EXPECT_EQ(g.ranks(), 0);
  EXPECT_EQ(g.steps(), 0);
  EXPECT_EQ(g.groups(), 0);
  EXPECT_TRUE(g.order().empty());

  ASSERT_TRUE(g.Rebuild(good).ok());
  EXPECT_EQ(g.steps(), steps);
  EXPECT_EQ(g.groups(), groups);
  ExpectValidOrder(good, g);
}

}  // namespace
}  // namespace braid
