#include "plan_edits.h"

#include <algorithm>
#include <utility>

#include "braid/plan_check.h"
#include "braid/planner.h"

namespace braid {

Plan MustBuild(Op op, int64_t m, int64_t n, int64_t k, int p, Algorithm algo, int chunks, int lanes) {
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

int Find(const RankPlan& rp, const std::function<bool(const Step&)>& pred) {
  for (const Step& s : rp.steps) {
    if (pred(s)) return s.id;
  }
  return -1;
}

int FindKind(const RankPlan& rp, StepKind kind, int ring_step) {
  return Find(rp, [&](const Step& s) { return s.kind == kind && (ring_step == -2 || s.ring_step == ring_step); });
}

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

}  // namespace braid
