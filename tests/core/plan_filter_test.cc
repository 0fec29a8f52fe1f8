#include "braid/plan_filter.h"

#include <gtest/gtest.h>

#include "braid/plan_check.h"
#include "braid/planner.h"

namespace braid {
namespace {

Plan Serial(Op op, int p) {
  OverlapConfig c;
  return BuildPlan(Workload{op, 64, 32, 64, DType::kBf16, p}, c).value();
}

TEST(PlanFilter, ComputeAloneAndCommAloneSplitASerialPlan) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    const Plan plan = Serial(op, 4);
    const Plan compute = FilterPlan(plan, [](const Step& s) { return !IsCommStep(s); });
    const Plan comm = FilterPlan(plan, IsCommStep);
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(compute.ranks[size_t(r)].steps.size() + comm.ranks[size_t(r)].steps.size(),
                plan.ranks[size_t(r)].steps.size());
      for (const Step& s : compute.ranks[size_t(r)].steps) EXPECT_FALSE(IsCommStep(s));
      for (const Step& s : comm.ranks[size_t(r)].steps) EXPECT_TRUE(IsCommStep(s));
    }
    // Both halves are still well-formed plans a backend accepts.
    EXPECT_TRUE(CheckPlanStructure(compute).ok()) << CheckPlanStructure(compute).message();
    EXPECT_TRUE(CheckPlanStructure(comm).ok()) << CheckPlanStructure(comm).message();
  }
}

TEST(PlanFilter, DependenciesAreRenumberedAndDroppedWithTheirSteps) {
  const Plan plan = Serial(Op::kGemmRs, 2);  // gemm, then reduce_scatter depending on it
  const Plan comm = FilterPlan(plan, IsCommStep);
  ASSERT_EQ(comm.ranks[0].steps.size(), 1u);
  EXPECT_EQ(comm.ranks[0].steps[0].id, 0);
  EXPECT_TRUE(comm.ranks[0].steps[0].deps.empty());
  const Plan all = FilterPlan(plan, [](const Step&) { return true; });
  EXPECT_EQ(all.ranks[0].steps[1].deps, plan.ranks[0].steps[1].deps);
}

}  // namespace
}  // namespace braid
