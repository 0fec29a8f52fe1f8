#include "braid/view/time_axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace braid::view {

namespace {

std::string Fmt(const char* fmt, double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}

struct Unit {
  double scale;
  const char* name;
};

Unit UnitFor(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return {1, "ns"};
  if (a < 1e6) return {1e3, "µs"};
  if (a < 1e9) return {1e6, "ms"};
  return {1e9, "s"};
}

}  // namespace

std::string FormatDuration(double ns) {
  const Unit u = UnitFor(ns);
  if (u.scale == 1) return Fmt("%.0f %s", ns, u.name);
  const double v = ns / u.scale;
  const double a = std::fabs(v);
  return Fmt(a >= 100 ? "%.0f %s" : a >= 10 ? "%.1f %s" : "%.2f %s", v, u.name);
}

ViewRange ViewRange::Zoomed(double factor, double anchor) const {
  anchor = std::clamp(anchor, 0.0, 1.0);
  const double at = begin + anchor * span();
  const double s = std::max(kMinSpan, span() * factor);
  return {at - anchor * s, at - anchor * s + s};
}

ViewRange ViewRange::Fit(double t0, double t1, double margin) {
  if (t1 < t0) std::swap(t0, t1);
  const double s = std::max(kMinSpan, t1 - t0);
  const double mid = (t0 + t1) / 2;
  const double half = s * (0.5 + margin);
  return {mid - half, mid + half};
}

std::vector<AxisTick> AxisTicks(const ViewRange& r, double width_px, double min_px) {
  std::vector<AxisTick> ticks;
  if (width_px <= 0 || r.span() <= 0) return ticks;
  const double raw = r.span() * min_px / width_px;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * decade;
    if (step >= raw) break;
  }
  const Unit u = UnitFor(step);
  // Enough digits that neighbouring labels differ.
  const double v = step / u.scale;
  const char* fmt = v >= 1 ? "%.0f %s" : v >= 0.1 ? "%.1f %s" : "%.2f %s";
  for (double t = std::ceil(r.begin / step) * step; t <= r.end; t += step) {
    ticks.push_back({t, Fmt(fmt, std::fabs(t) < step / 2 ? 0.0 : t / u.scale, u.name)});
  }
  return ticks;
}

}  // namespace braid::view
