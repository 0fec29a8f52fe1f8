#include "braid/intervals.h"

#include <algorithm>

namespace braid {

std::vector<Interval> MergeIntervals(std::vector<Interval> in) {
  std::erase_if(in, [](const Interval& i) { return i.end <= i.begin; });
  // A lane's events come sorted by start: checking costs one pass, sorting
  // them again was the largest part of the viewer's bands. Ties may come in
  // any order: merging takes the larger end either way.
  const auto by_begin = [](const Interval& x, const Interval& y) { return x.begin < y.begin; };
  if (!std::is_sorted(in.begin(), in.end(), by_begin)) std::sort(in.begin(), in.end(), by_begin);
  std::vector<Interval> out;
  for (const Interval& i : in) {
    if (!out.empty() && i.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

int64_t UnionLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& i : merged) total += i.end - i.begin;
  return total;
}

int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].begin, b[j].begin);
    const int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

int64_t OverlapLength(const std::vector<Interval>& merged, Interval one) {
  int64_t total = 0;
  for (const Interval& i : merged) {
    if (i.begin >= one.end) break;  // sorted: none later reaches it
    const int64_t lo = std::max(i.begin, one.begin), hi = std::min(i.end, one.end);
    if (hi > lo) total += hi - lo;
  }
  return total;
}

}  // namespace braid
