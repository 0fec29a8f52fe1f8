// The sim engine keeps its buffers and memos (GEMM costs, running-list room,
// link / port / memory-kernel times of the last step) from one evaluation to
// the next for speed. Nothing of an earlier plan may leak into a later one:
// a backend that evaluated other plans first, in either order, must give
// every step exactly the times a fresh backend gives.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid {
namespace {

struct Case {
  std::string topology;
  Plan plan;
};

// Ops × algorithms × chunks × comm engines × TP × four shapes (M, K), on topologies
// with one link kind, NVLink pairs (three port classes) and two nodes.
std::vector<Case> Grid() {
  std::vector<Case> cases;
  for (const char* topo : {"h100-sxm", "a100-pcie-nvlink-pairs", "h100-sxm-2node-ib"}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
      for (int tp : {2, 4, 16}) {
        for (Algorithm algo :
             {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kFused}) {
          for (int chunks : {1, 4}) {
            for (CommEngine engine : {CommEngine::kSm, CommEngine::kCopyEngine}) {
              for (int64_t m : {2048, 8192}) {
                for (int64_t k : {4096, 8192}) {
                  OverlapConfig c;
                  c.algorithm = algo;
                  c.chunks = chunks;
                  c.comm_engine = engine;
                  Result<Plan> p = BuildPlan(Workload{op, m, 8192, k, DType::kBf16, tp}, c);
                  if (p.ok()) cases.push_back({topo, std::move(*p)});
                }
              }
            }
          }
        }
      }
    }
  }
  return cases;
}

// Every event's start and end (with the makespan first); empty when the
// topology cannot hold the plan.
std::vector<int64_t> Times(Backend& b, const Plan& plan) {
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  Result<RunOutput> out = b.Run(plan, o);
  if (!out.ok()) return {};
  std::vector<int64_t> t = {out->iteration_ns.at(0)};
  for (const Event& e : out->events) {
    t.push_back(e.start_ns);
    t.push_back(e.end_ns);
  }
  return t;
}

std::unique_ptr<Backend> BackendFor(const std::string& topology) {
  Result<std::unique_ptr<Backend>> b = MakeSimBackend(topology);
  EXPECT_TRUE(b.ok()) << b.status().message();
  return b.ok() ? std::move(*b) : nullptr;
}

TEST(SimReuse, EveryStepTimeMatchesAFreshBackendInEitherOrder) {
  const std::vector<Case> cases = Grid();
  ASSERT_GT(cases.size(), 400u);
  std::vector<std::vector<int64_t>> fresh;
  size_t simulated = 0;
  for (const Case& c : cases) {
    std::unique_ptr<Backend> b = BackendFor(c.topology);
    ASSERT_NE(b, nullptr);
    fresh.push_back(Times(*b, c.plan));
    simulated += fresh.back().empty() ? 0 : 1;
  }
  ASSERT_GT(simulated, 300u);  // most plans fit their topology

  // One backend per topology, reused across all its plans.
  for (bool reverse : {false, true}) {
    std::string shared_topology;
    std::unique_ptr<Backend> shared;
    for (size_t n = 0; n < cases.size(); ++n) {
      const size_t i = reverse ? cases.size() - 1 - n : n;
      if (cases[i].topology != shared_topology) {
        shared = BackendFor(cases[i].topology);
        shared_topology = cases[i].topology;
      }
      ASSERT_NE(shared, nullptr);
      EXPECT_EQ(Times(*shared, cases[i].plan), fresh[i])
          << (reverse ? "reverse" : "forward") << " order, case " << i << " on " << cases[i].topology;
    }
  }
}

// The same plan evaluated again after a larger and a smaller one: the
// running-list room and step buffers shrink and grow without stale entries.
TEST(SimReuse, APlanGivesTheSameTimesBetweenLargerAndSmallerPlans) {
  std::unique_ptr<Backend> backend = BackendFor("h100-sxm");
  ASSERT_NE(backend, nullptr);
  Backend& b = *backend;
  const auto plan = [](int tp, int chunks) {
    OverlapConfig c;
    c.algorithm = Algorithm::kRing;
    c.chunks = chunks;
    return *BuildPlan(Workload{Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, tp}, c);
  };
  const Plan mid = plan(4, 2), big = plan(8, 4), small = plan(2, 1);
  const std::vector<int64_t> first = Times(b, mid);
  ASSERT_FALSE(first.empty());
  EXPECT_FALSE(Times(b, big).empty());
  EXPECT_EQ(Times(b, mid), first);
  EXPECT_FALSE(Times(b, small).empty());
  EXPECT_EQ(Times(b, mid), first);
}

// Run loads the graph its plan check built; Evaluate builds its own. Mixed
// on one backend they must agree on every plan, and a plan the check refuses
// must leave nothing of itself for the next run.
TEST(SimReuse, RunOnTheCheckedGraphAgreesWithEvaluate) {
  Result<SimHardware> hw = LoadSimHardware("h100-sxm");
  ASSERT_TRUE(hw.ok());
  SimBackend b(hw->gpu, hw->topo);
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  o.trace = false;
  size_t compared = 0;
  for (const Case& c : Grid()) {
    if (c.topology != "h100-sxm" || c.plan.tp() > 8) continue;
    const Result<int64_t> evaluated = b.Evaluate(c.plan);
    const Result<RunOutput> run = b.Run(c.plan, o);
    ASSERT_TRUE(evaluated.ok() && run.ok()) << evaluated.status().message() << run.status().message();
    EXPECT_EQ(run->iteration_ns.at(0), *evaluated) << "case " << compared;
    ++compared;
  }
  EXPECT_GT(compared, 100u);

  OverlapConfig ring;
  ring.algorithm = Algorithm::kRing;
  const Plan good = *BuildPlan(Workload{Op::kGemmRs, 4096, 4096, 4096, DType::kBf16, 4}, ring);
  Plan bad = good;
  bad.ranks[2].steps[0].deps.push_back(5);  // not an earlier step
  const Result<RunOutput> refused = b.Run(bad, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("rank 2 step 0"), std::string::npos) << refused.status().message();
  const Result<RunOutput> again = b.Run(good, o);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->iteration_ns.at(0), *b.Evaluate(good));
}

}  // namespace
}  // namespace braid
