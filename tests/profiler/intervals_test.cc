#include "braid/intervals.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

TEST(Intervals, MergeJoinsOverlappingAndTouchingAndDropsEmpty) {
  auto m = MergeIntervals({{10, 20}, {0, 5}, {5, 7}, {15, 30}, {40, 40}, {50, 45}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].begin, 0);
  EXPECT_EQ(m[0].end, 7);
  EXPECT_EQ(m[1].begin, 10);
  EXPECT_EQ(m[1].end, 30);
  EXPECT_EQ(UnionLength(m), 27);
}

TEST(Intervals, IntersectionSweepsBothSets) {
  auto a = MergeIntervals({{0, 10}, {20, 30}, {40, 50}});
  auto b = MergeIntervals({{5, 25}, {28, 45}});
  // [5,10) + [20,25) + [28,30) + [40,45)
  EXPECT_EQ(IntersectionLength(a, b), 5 + 5 + 2 + 5);
  EXPECT_EQ(IntersectionLength(a, {}), 0);
}

TEST(Intervals, OverlapWithOneIntervalIsTheIntersectionWithItsSet) {
  auto a = MergeIntervals({{0, 10}, {20, 30}, {40, 50}});
  for (const Interval one : {Interval{5, 25}, Interval{-5, 0}, Interval{10, 20}, Interval{0, 60}, Interval{45, 45}}) {
    EXPECT_EQ(OverlapLength(a, one), IntersectionLength(a, MergeIntervals({one})));
  }
  EXPECT_EQ(OverlapLength(a, {5, 25}), 10);
}

}  // namespace
}  // namespace braid
