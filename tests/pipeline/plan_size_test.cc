// The plan's size known before it is built (pipeline/src/plan_size.h): the
// estimate from small stand-in plans equals the real plan's step count for
// every algorithm, across P (the parabola past P = 16) and chunk counts,
// and a plan past the limit is refused saying how large it would be.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "braid/planner.h"
#include "plan_size.h"

namespace braid {
namespace {

using ::testing::HasSubstr;

TEST(RunPipelinePlanSize, TheEstimateIsTheRealStepCount) {
  int checked = 0;
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
      for (int p : {2, 8, 24, 64}) {
        for (int chunks : {1, 3, 8}) {
          if (algo == Algorithm::kSerial && chunks != 1) continue;
          Workload w;
          w.op = op;
          w.tp = p;
          w.m = int64_t(p) * 2 * chunks * 4;
          w.n = 256;
          w.k = int64_t(p) * 64;
          OverlapConfig c;
          c.algorithm = algo;
          c.chunks = chunks;
          auto plan = BuildPlan(w, c);
          if (!plan.ok()) continue;  // not a combination this op takes
          SCOPED_TRACE(std::string(OpName(op)) + " " + c.Describe() + " P=" + std::to_string(p));
          EXPECT_EQ(pipeline::EstimatePlanSteps(w, c), int64_t(plan->total_steps()));
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(RunPipelinePlanSize, APlanPastTheLimitIsRefusedWithItsSize) {
  Workload w;
  w.op = Op::kGemmRs;
  w.tp = 8;
  w.m = 8 << 20;
  w.n = 64;
  w.k = 64;
  OverlapConfig c;
  c.algorithm = Algorithm::kRing;
  c.chunks = 1 << 20;
  const int64_t steps = pipeline::EstimatePlanSteps(w, c);
  EXPECT_GT(steps, kMaxPlanSteps);
  const Status s = pipeline::CheckPlanSteps(steps, w.tp, c);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("the plan would have about " + std::to_string(steps) +
                                     " steps (`tp` 8, `chunks` 1048576: about "));
  EXPECT_THAT(s.message(), HasSubstr("lower `chunks` or `tp`"));
  EXPECT_TRUE(pipeline::CheckPlanSteps(kMaxPlanSteps, 8, c).ok());
}

}  // namespace
}  // namespace braid
