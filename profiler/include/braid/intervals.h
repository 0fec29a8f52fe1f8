// Interval arithmetic for overlap metrics: unions and intersections of
// half-open [begin, end) time intervals.
#pragma once

#include <cstdint>
#include <vector>

namespace braid {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
};

// Sorts and merges; touching intervals merge. Empty intervals are dropped.
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);

// @pre `merged` comes from MergeIntervals.
int64_t UnionLength(const std::vector<Interval>& merged);

// Length of the intersection of two merged interval sets (linear sweep).
int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);
// IntersectionLength against one interval, with no set built for it.
int64_t OverlapLength(const std::vector<Interval>& merged, Interval one);

}  // namespace braid
