#include <gtest/gtest.h>

#include "braid/measurement.h"

namespace braid {
namespace {

TEST(Measurement, MedianAndIntervalFromOrderStatistics) {
  Measurement odd = Summarize({5, 1, 3}, 3);
  EXPECT_EQ(odd.median_ns, 3);
  EXPECT_EQ(odd.ci_low_ns, 1);  // fewer than 6 samples: [min, max]
  EXPECT_EQ(odd.ci_high_ns, 5);
  EXPECT_EQ(odd.samples_ns, (std::vector<double>{5, 1, 3})) << "samples keep their order";

  std::vector<double> s;
  for (int i = 1; i <= 20; ++i) s.push_back(i);
  Measurement m = Summarize(s, 22);
  EXPECT_DOUBLE_EQ(m.median_ns, 10.5);
  // n=20: ranks floor(10 − 4.38)=5 and ceil(10 + 4.38)−1=14 (0-based): values 6 and 15.
  EXPECT_EQ(m.ci_low_ns, 6);
  EXPECT_EQ(m.ci_high_ns, 15);
  EXPECT_EQ(m.iterations, 22);
}

TEST(Measurement, IntervalsDecideWhatIsClearlyFaster) {
  Measurement fast = Summarize({100, 101, 99, 100, 102, 98}, 6);
  Measurement slow = Summarize({110, 111, 109, 110, 112, 108}, 6);
  Measurement near = Summarize({101, 103, 100, 102, 104, 99}, 6);
  EXPECT_TRUE(fast.ClearlyFasterThan(slow));
  EXPECT_FALSE(slow.ClearlyFasterThan(fast));
  EXPECT_FALSE(fast.ClearlyFasterThan(near));
}

TEST(Measurement, PoolingMergesSamplesAndCosts) {
  Measurement a = Summarize({1, 2, 3}, 4);
  Measurement b = Summarize({4, 5, 6}, 3);
  Measurement p = Pool(a, b);
  EXPECT_EQ(p.samples_ns.size(), 6u);
  EXPECT_DOUBLE_EQ(p.median_ns, 3.5);
  EXPECT_EQ(p.iterations, 7);
}

}  // namespace
}  // namespace braid
