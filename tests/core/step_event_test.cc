// EventOfStep: the one place a plan step becomes an Event (sim, cpu and cuda
// backends all record through it), checked on the steps of a real ring plan.
#include "braid/step_event.h"

#include <gtest/gtest.h>

#include "braid/planner.h"

namespace braid {
namespace {

Plan RingGemmRs() {
  const Workload w{Op::kGemmRs, 64, 32, 64, DType::kFp32, 4};
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kRing;
  cfg.chunks = 2;
  Result<Plan> plan = BuildPlan(w, cfg);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? std::move(plan).value() : Plan();
}

TEST(StepEvent, CarriesEveryFieldOfTheStepAndTheGivenTimes) {
  const Plan plan = RingGemmRs();
  ASSERT_EQ(plan.tp(), 4);
  int sends = 0;
  for (const Step& s : plan.ranks[2].steps) {
    const Event e = EventOfStep(s, 5, 2, 1000 + s.id, 2000 + s.id);
    EXPECT_EQ(e.iteration, 5);
    EXPECT_EQ(e.rank, 2);
    EXPECT_EQ(e.lane, s.lane);
    EXPECT_EQ(e.kind, EventKindOf(s.kind));
    EXPECT_EQ(e.name, s.name);
    EXPECT_EQ(e.start_ns, 1000 + s.id);
    EXPECT_EQ(e.end_ns, 2000 + s.id);
    EXPECT_EQ(e.bytes, s.bytes);
    EXPECT_EQ(e.flops, s.flops);
    EXPECT_EQ(e.chunk, s.chunk);
    EXPECT_EQ(e.step, s.ring_step);
    EXPECT_EQ(e.peer, s.peer);
    EXPECT_EQ(e.correlation, s.match);
    if (s.kind == StepKind::kSend) {
      ++sends;
      // A ring send names its neighbour, its ring step and the id its recv shares.
      EXPECT_EQ(e.kind, EventKind::kComm);
      EXPECT_GE(e.peer, 0);
      EXPECT_GE(e.step, 0);
      EXPECT_GE(e.correlation, 0);
      EXPECT_GT(e.bytes, 0);
    }
  }
  EXPECT_GT(sends, 0);
}

TEST(StepEvent, KindsFollowTheStepKind) {
  Step s;
  s.kind = StepKind::kGemm;
  EXPECT_EQ(EventOfStep(s, 0, 0, 0, 1).kind, EventKind::kCompute);
  s.kind = StepKind::kReduce;
  EXPECT_EQ(EventOfStep(s, 0, 0, 0, 1).kind, EventKind::kReduce);
  s.kind = StepKind::kCopy;
  EXPECT_EQ(EventOfStep(s, 0, 0, 0, 1).kind, EventKind::kCopy);
  s.kind = StepKind::kCollective;
  EXPECT_EQ(EventOfStep(s, 0, 0, 0, 1).kind, EventKind::kComm);
  // A step with no match id leaves the correlation unset for the backend.
  EXPECT_EQ(EventOfStep(s, 0, 0, 0, 1).correlation, -1);
}

}  // namespace
}  // namespace braid
