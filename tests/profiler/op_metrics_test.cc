// Per-op figures of a layer run (braid/op_metrics.h): each event mapped to
// its op by name, each op's span, comm and exposed comm on the worst rank.
#include "braid/op_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "timed_event.h"

namespace braid {
namespace {

Event Named(int iteration, int rank, EventKind kind, const std::string& name, int64_t start, int64_t end) {
  Event e = testing::TimedEvent(iteration, rank, kind, start, end);
  e.name = name;
  return e;
}

TEST(OpMetrics, EachEventCountsForTheOpItIsNamedAfter) {
  OpMetricsBuilder b({"qkv.fprop", "attention", "attention.backward", "qkv.dgrad"});
  b.Add({Named(0, 0, EventKind::kCompute, "qkv.fprop.gemm", 0, 100),
         Named(0, 0, EventKind::kComm, "qkv.fprop.send", 20, 140),
         Named(0, 0, EventKind::kCompute, "attention", 100, 200),
         Named(0, 0, EventKind::kCompute, "attention.backward", 200, 260),  // not "attention"'s
         Named(0, 0, EventKind::kCompute, "qkv.dgrad.gemm", 260, 300),
         Named(0, 0, EventKind::kComm, "unrelated", 0, 1000)});  // no op: left out
  const std::vector<OpFigures> f = b.Finish();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].time_ns, 140);
  EXPECT_EQ(f[0].compute_ns, 100);
  EXPECT_EQ(f[0].comm_ns, 120);
  // 80 ns of its comm under its own GEMM, 40 under attention's: all hidden.
  EXPECT_EQ(f[0].exposed_comm_ns, 0);
  EXPECT_DOUBLE_EQ(f[0].overlap_ratio, 1.0);
  EXPECT_EQ(f[1].time_ns, 100);
  EXPECT_EQ(f[2].time_ns, 60);
  EXPECT_EQ(f[3].time_ns, 40);
  EXPECT_EQ(f[3].comm_ns, 0);
  EXPECT_EQ(f[3].overlap_ratio, 0);
}

TEST(OpMetrics, TheWorstRanksP50OverIterations) {
  OpMetricsBuilder b({"fc2.fprop"});
  for (int it = 0; it < 3; ++it) {
    // Rank 1 is slower and exposes 10 ns of comm more; iteration 2 is an outlier.
    const int64_t extra = it == 2 ? 1000 : 0;
    b.Add({Named(it, 0, EventKind::kCompute, "fc2.fprop.gemm", 0, 100),
           Named(it, 0, EventKind::kComm, "fc2.fprop.collective", 90, 110),
           Named(it, 1, EventKind::kCompute, "fc2.fprop.gemm", 0, 100),
           Named(it, 1, EventKind::kComm, "fc2.fprop.collective", 90, 120 + extra)});
  }
  const OpFigures f = b.Finish().at(0);
  EXPECT_EQ(f.time_ns, 120);                       // rank 1, the median iteration
  EXPECT_EQ(f.exposed_comm_ns, 20);                // rank 1's 30 of comm, 10 of it hidden
  EXPECT_DOUBLE_EQ(f.overlap_ratio, 10.0 / 30.0);  // the worst rank's: the lowest
}

TEST(OpMetrics, AnOpWithoutEventsHasZeros) {
  OpMetricsBuilder b({"qkv", "fc1"});
  b.Add({Named(0, 0, EventKind::kCompute, "qkv.gemm", 0, 10)});
  const std::vector<OpFigures> f = b.Finish();
  EXPECT_EQ(f[0].time_ns, 10);
  EXPECT_EQ(f[1].time_ns, 0);
}

}  // namespace
}  // namespace braid
