#include "braid/measurement.h"

#include "braid/median.h"

#include <algorithm>
#include <cmath>

namespace braid {

Measurement Summarize(std::vector<double> samples_ns, int64_t iterations) {
  Measurement m;
  m.iterations = iterations;
  std::vector<double> sorted = samples_ns;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  m.median_ns = Median(sorted).value_or(0.0);
  if (n < 6) {
    m.ci_low_ns = sorted.front();
    m.ci_high_ns = sorted.back();
  } else {
    const double half = 1.96 * std::sqrt(double(n)) / 2;
    const auto lo = size_t(std::max(0.0, std::floor(double(n) / 2 - half)));
    const auto hi = size_t(std::min(double(n - 1), std::ceil(double(n) / 2 + half) - 1));
    m.ci_low_ns = sorted[lo];
    m.ci_high_ns = sorted[hi];
  }
  m.samples_ns = std::move(samples_ns);
  return m;
}

Measurement Pool(const Measurement& a, const Measurement& b) {
  std::vector<double> all = a.samples_ns;
  all.insert(all.end(), b.samples_ns.begin(), b.samples_ns.end());
  return Summarize(std::move(all), a.iterations + b.iterations);
}

}  // namespace braid
