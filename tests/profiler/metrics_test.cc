#include "braid/metrics.h"

#include <gtest/gtest.h>

#include "timed_event.h"

namespace braid {
namespace {

constexpr auto Ev = testing::TimedEvent;

TEST(Metrics, ChunkedPatternGivesOverlapExposedCommAndTail) {
  // compute [0,10) [10,20); comm [10,18) overlaps, [20,28) is the tail.
  std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 10), Ev(0, 0, EventKind::kCompute, 10, 20),
                            Ev(0, 0, EventKind::kComm, 10, 18), Ev(0, 0, EventKind::kComm, 20, 28)};
  RunMetrics rm = ComputeRunMetrics(evs);
  const MetricValues& v = rm.values[0][0];
  EXPECT_EQ(v[Metric::kMakespan], 28);
  EXPECT_EQ(v[Metric::kCompute], 20);
  EXPECT_EQ(v[Metric::kComm], 16);
  EXPECT_EQ(v[Metric::kOverlap], 8);
  EXPECT_EQ(v[Metric::kExposedComm], 8);
  EXPECT_EQ(v[Metric::kTail], 8);
  EXPECT_DOUBLE_EQ(v[Metric::kOverlapRatio], 0.5);
}

TEST(Metrics, ReduceAfterLastGemmCountsAsTailNotCompute) {
  std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 10), Ev(0, 0, EventKind::kReduce, 10, 12)};
  const MetricValues v = ComputeRunMetrics(evs).values[0][0];
  EXPECT_EQ(v[Metric::kCompute], 10);
  EXPECT_EQ(v[Metric::kTail], 2);
  EXPECT_EQ(v[Metric::kOverlapRatio], 0);  // no comm
}

TEST(Metrics, OverallTakesWorstRankThenPercentilesOverIterations) {
  std::vector<Event> evs;
  // Rank 1 is slower; iteration makespans of the worst rank: 10, 20, 30, 40, 1000.
  const int64_t spans[] = {10, 20, 30, 40, 1000};
  for (int it = 0; it < 5; ++it) {
    evs.push_back(Ev(it, 0, EventKind::kCompute, 0, 5));
    evs.push_back(Ev(it, 1, EventKind::kCompute, 0, spans[it]));
  }
  RunMetrics rm = ComputeRunMetrics(evs);
  EXPECT_EQ(rm.iterations, 5);
  EXPECT_EQ(rm.ranks, 2);
  EXPECT_DOUBLE_EQ(rm.overall[Metric::kMakespan].p50, 30);
  EXPECT_NEAR(rm.overall[Metric::kMakespan].p99, 40 + 0.96 * 960, 1e-9);
  EXPECT_DOUBLE_EQ(rm.per_rank[0][Metric::kMakespan].p50, 5);
}

TEST(Metrics, OverlapRatioOverallIsTheWorstRank) {
  std::vector<Event> evs = {Ev(0, 0, EventKind::kCompute, 0, 10), Ev(0, 0, EventKind::kComm, 0, 10),
                            Ev(0, 1, EventKind::kCompute, 0, 10), Ev(0, 1, EventKind::kComm, 5, 15)};
  RunMetrics rm = ComputeRunMetrics(evs);
  EXPECT_DOUBLE_EQ(rm.overall[Metric::kOverlapRatio].p50, 0.5);
}

TEST(Metrics, PercentileInterpolates) {
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({7}, 0.99), 7);
  EXPECT_DOUBLE_EQ(Percentile({}, 0.5), 0);
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST(Metrics, AbsentRanksTakeNoPartInTheWorstRank) {
  // A trace of rank 3 alone: ranks 0..2 never appear.
  std::vector<Event> evs = {Ev(0, 3, EventKind::kCompute, 0, 10), Ev(0, 3, EventKind::kComm, 5, 15)};
  RunMetrics rm = ComputeRunMetrics(evs);
  ASSERT_EQ(rm.ranks, 4);
  EXPECT_FALSE(rm.present[0]);
  EXPECT_TRUE(rm.present[3]);
  EXPECT_DOUBLE_EQ(rm.overall[Metric::kOverlapRatio].p50, 0.5);  // not 0 from an absent rank
  EXPECT_DOUBLE_EQ(rm.overall[Metric::kMakespan].p50, 15);
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// Iterations added one batch at a time give the figures of the whole run,
// rank 2 appearing only in the last batch included.
TEST(RunMetricsBuilder, BatchesGiveTheFiguresOfTheWholeRun) {
  std::vector<std::vector<Event>> batches(3);
  std::vector<Event> all;
  for (int it = 0; it < 3; ++it) {
    for (int r = 0; r < (it == 2 ? 3 : 2); ++r) {
      const int64_t t = it * 100 + r;
      for (const Event& e :
           {Ev(it, r, EventKind::kCompute, t, t + 10 + it), Ev(it, r, EventKind::kComm, t + 5, t + 30)}) {
        batches[size_t(it)].push_back(e);
        all.push_back(e);
      }
    }
  }
  RunMetricsBuilder b;
  for (const auto& batch : batches) ASSERT_TRUE(b.Add(batch).ok());
  const RunMetrics streamed = b.Finish(), whole = ComputeRunMetrics(all);
  ASSERT_EQ(streamed.iterations, 3);
  ASSERT_EQ(streamed.ranks, 3);
  EXPECT_EQ(streamed.present, whole.present);
  for (int it = 0; it < 3; ++it) {
    for (int r = 0; r < 3; ++r) EXPECT_EQ(streamed.values[it][r].v, whole.values[it][r].v) << it << "," << r;
  }
  for (Metric m : kAllMetrics) {
    EXPECT_EQ(streamed.overall[m].p50, whole.overall[m].p50);
    EXPECT_EQ(streamed.overall[m].p99, whole.overall[m].p99);
  }
}

TEST(RunMetricsBuilder, AnIterationRankSplitOverTwoBatchesIsRefused) {
  RunMetricsBuilder b;
  ASSERT_TRUE(b.Add({Ev(0, 0, EventKind::kCompute, 0, 10)}).ok());
  const Status s = b.Add({Ev(0, 1, EventKind::kCompute, 0, 10), Ev(0, 0, EventKind::kComm, 0, 5)});
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("iteration 0 rank 0"), std::string::npos) << s.message();
  EXPECT_EQ(b.Finish().ranks, 1);  // nothing of the refused batch was kept
}

}  // namespace
}  // namespace braid
