// std::lower_bound for a target that is usually near the front of the
// range: probe 1, 2, 4, ... elements ahead, then search the last step's
// span. Drawing walks a row or band a pixel at a time, and each step's
// target lies a few to a few hundred elements on; a binary search over the
// whole remaining row touches cache lines megabytes apart for each pixel,
// this one a handful of neighbouring ones (Tracy's zones are searched alike).
#pragma once

#include <algorithm>
#include <functional>
#include <iterator>

namespace braid::view {

// The first element in [first, last) for which comp(element, value) is
// false, as std::lower_bound; O(log d) where d is its distance from first.
template <class It, class T, class Comp>
It GallopLowerBound(It first, It last, const T& value, Comp comp) {
  auto step = std::iter_difference_t<It>(1);
  It lo = first;
  while (std::distance(lo, last) > step && comp(*(lo + step), value)) {
    lo += step;
    step *= 2;
  }
  // Here *lo is below value (or lo == first) and lo + step, if inside, is not.
  const It hi = std::distance(lo, last) > step ? lo + step + 1 : last;
  return std::lower_bound(lo, hi, value, comp);
}

template <class It, class T>
It GallopLowerBound(It first, It last, const T& value) {
  return GallopLowerBound(first, last, value, std::less<>());
}

}  // namespace braid::view
