#include "braid/view/trial_scale.h"

#include <algorithm>
#include <cmath>

namespace braid::view {

namespace {
constexpr double kLogFrom = 10;  // hi / lo at which the axis turns logarithmic
}

double TrialScale::FromTop(double v) const {
  if (log) {
    const double l = std::log10(std::max(v, lo)), a = std::log10(lo), b = std::log10(hi);
    return b > a ? (b - l) / (b - a) : 0.5;
  }
  return hi > lo ? (hi - v) / (hi - lo) : 0.5;
}

std::vector<double> TrialScale::Ticks() const {
  std::vector<double> out;
  if (!log) {
    for (int i = 0; i <= 4; ++i) out.push_back(hi - (hi - lo) * i / 4.0);
    return out;
  }
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = decade * m;
      if (v >= lo && v <= hi) out.push_back(v);
    }
  }
  if (out.size() < 2) out = {hi, lo};
  std::sort(out.rbegin(), out.rend());
  return out;
}

TrialScale MakeTrialScale(double lo, double hi) {
  TrialScale s;
  if (!(hi >= lo) || !std::isfinite(lo) || !std::isfinite(hi)) return s;
  if (lo > 0 && hi / lo >= kLogFrom) {
    s.log = true;
    s.lo = lo / std::pow(10.0, 0.25);
    s.hi = hi * std::pow(10.0, 0.25);
    return s;
  }
  const double pad = std::max(1.0, (hi - lo) * 0.08);
  s.lo = std::max(0.0, lo - pad);
  s.hi = hi + pad;
  return s;
}

std::vector<std::string> TrialTargets(const std::vector<TrialRow>& rows) {
  std::vector<std::string> out;
  for (const TrialRow& r : rows) {
    if (std::find(out.begin(), out.end(), r.op) == out.end()) out.push_back(r.op);
  }
  if (out.empty()) out.push_back("");
  return out;
}

}  // namespace braid::view
