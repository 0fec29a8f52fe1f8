#include "braid/bound_gap.h"

#include <gtest/gtest.h>

#include "timed_event.h"

namespace braid {
namespace bound_gap_test {
namespace {

constexpr auto Ev = testing::TimedEvent;

TEST(BoundGap, ACommBoundRunSplitsItsGapIntoCommStretchAndCommIdle) {
  // comm busy 70 + 15 = 85 of a 100 ns makespan; alone it takes 70.
  const std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 50), Ev(0, 0, EventKind::kComm, 10, 80),
                                  Ev(0, 0, EventKind::kComm, 85, 100)};
  const auto g = BoundGapOf(FiguresOf(ComputeRunMetrics(evs), LowerBound{40, 70}));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->side, BoundSide::kComm);
  EXPECT_EQ(BoundSideName(g->side), "comm");
  EXPECT_DOUBLE_EQ(g->makespan_ns, 100);
  EXPECT_DOUBLE_EQ(g->bound_ns, 70);
  EXPECT_DOUBLE_EQ(g->stretched_ns, 15);
  EXPECT_DOUBLE_EQ(g->idle_ns, 15);
  EXPECT_DOUBLE_EQ(g->gap_ns(), g->makespan_ns - g->bound_ns);
  EXPECT_DOUBLE_EQ(g->compute_slowdown, 50.0 / 40);
  EXPECT_DOUBLE_EQ(g->comm_slowdown, 85.0 / 70);
}

TEST(BoundGap, AComputeBoundRunSplitsItsGapIntoGemmSlowdownAndComputeIdle) {
  // compute busy 90 of 100 (idle while the comm in [60, 70) runs alone); alone 80.
  const std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 60), Ev(0, 0, EventKind::kComm, 60, 70),
                                  Ev(0, 0, EventKind::kCompute, 70, 100)};
  const auto g = BoundGapOf(FiguresOf(ComputeRunMetrics(evs), LowerBound{80, 5}));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->side, BoundSide::kCompute);
  EXPECT_DOUBLE_EQ(g->stretched_ns, 10);
  EXPECT_DOUBLE_EQ(g->idle_ns, 10);
  EXPECT_DOUBLE_EQ(g->compute_slowdown, 90.0 / 80);
  EXPECT_DOUBLE_EQ(g->comm_slowdown, 2.0);
}

TEST(BoundGap, ARunFasterThanItsBoundShowsANegativeStretch) {
  // Noisy hardware: the compute ran faster than its separately measured alone time.
  const std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 90)};
  const auto g = BoundGapOf(FiguresOf(ComputeRunMetrics(evs), LowerBound{100, 0}));
  ASSERT_TRUE(g.has_value());
  EXPECT_DOUBLE_EQ(g->stretched_ns, -10);
  EXPECT_DOUBLE_EQ(g->idle_ns, 0);
  EXPECT_DOUBLE_EQ(g->comm_slowdown, 0) << "no comm alone: no ratio";
}

TEST(BoundGap, TheSlowestRankOfTheMedianIterationIsMeasured) {
  // Iteration makespans of the slowest rank: 300 (rank 1), 100 (rank 0), 200 (rank 1).
  const std::vector<Event> evs = {
      Ev(0, 0, EventKind::kCompute, 0, 50),  Ev(0, 1, EventKind::kCompute, 0, 300),
      Ev(1, 0, EventKind::kCompute, 0, 100), Ev(1, 1, EventKind::kCompute, 0, 90),
      Ev(2, 0, EventKind::kCompute, 0, 20),  Ev(2, 1, EventKind::kCompute, 0, 200),
  };
  const auto g = BoundGapOf(FiguresOf(ComputeRunMetrics(evs), LowerBound{50, 0}));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->iteration, 2);
  EXPECT_EQ(g->rank, 1);
  EXPECT_DOUBLE_EQ(g->makespan_ns, 200);
  // Two iterations: the lower middle.
  const std::vector<Event> two = {Ev(0, 0, EventKind::kCompute, 0, 300), Ev(1, 0, EventKind::kCompute, 0, 100)};
  EXPECT_EQ(BoundGapOf(FiguresOf(ComputeRunMetrics(two), LowerBound{50, 0}))->iteration, 1);
}

TEST(BoundGap, AbsentRanksAreNotMeasured) {
  RunMetrics m = SummarizeRunMetrics({{MetricValues{}, MetricValues{}}}, {false, true});
  m.values[0][0][Metric::kMakespan] = 1000;  // an absent rank's value must not count
  m.values[0][1][Metric::kMakespan] = 10;
  const auto g = BoundGapOf(FiguresOf(m, LowerBound{5, 0}));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->rank, 1);
}

TEST(BoundGap, NoLowerBoundOrNoMeasurementGivesNone) {
  const std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 10)};
  EXPECT_FALSE(BoundGapOf(FiguresOf(ComputeRunMetrics(evs), std::nullopt)).has_value())
      << "an imported trace has no lower bound";
  EXPECT_FALSE(BoundGapOf(FiguresOf(RunMetrics{}, LowerBound{1, 1})).has_value());
}

}  // namespace
}  // namespace bound_gap_test
}  // namespace braid
