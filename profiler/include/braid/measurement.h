// A trial's figure: the median of its timed iterations with a
// distribution-free 95 % confidence interval, so that two configs are only
// called different when their intervals say so.
#pragma once

#include <cstdint>
#include <vector>

namespace braid {

struct Measurement {
  std::vector<double> samples_ns;  // timed iterations, in the order measured
  double median_ns = 0;
  double ci_low_ns = 0, ci_high_ns = 0;  // 95 % interval of the median
  int64_t iterations = 0;                // warm-up + timed iterations it cost

  // True when the two intervals do not overlap.
  bool ClearlyFasterThan(const Measurement& o) const { return ci_high_ns < o.ci_low_ns; }
};

// Median and interval from order statistics: the ranks n/2 ∓ 1.96·√n/2
// (normal approximation of the binomial); with fewer than 6 samples the
// interval is [min, max]. @pre !samples.empty()
Measurement Summarize(std::vector<double> samples_ns, int64_t iterations);

// The samples of both, summarized again (a re-measured contender).
Measurement Pool(const Measurement& a, const Measurement& b);

}  // namespace braid
