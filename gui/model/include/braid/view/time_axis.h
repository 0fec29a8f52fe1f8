// Time on screen: the visible window and how it zooms and pans, the axis'
// tick marks at 1-2-5 steps, and durations in units people read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace braid::view {

// "850 ns", "12.3 µs", "4.56 ms", "1.20 s": three significant digits.
std::string FormatDuration(double ns);

// The visible window in ns relative to a timeline's origin. Never narrower
// than kMinSpan, so zooming in always stops.
struct ViewRange {
  static constexpr double kMinSpan = 10;  // ns
  double begin = 0, end = 1;

  double span() const { return end - begin; }
  // Zooms by `factor` (< 1 zooms in) keeping the time at `anchor` (0..1 of the
  // width) where it is on screen.
  ViewRange Zoomed(double factor, double anchor) const;
  ViewRange Panned(double ns) const { return {begin + ns, end + ns}; }
  // The window showing [t0, t1) with `margin` of the span on each side.
  static ViewRange Fit(double t0, double t1, double margin = 0.02);
};

struct AxisTick {
  double t = 0;  // relative ns
  std::string label;
};

// Ticks at a 1-2-5 step so that labels are at least `min_px` apart across
// `width_px`; labels in one unit chosen by the step.
std::vector<AxisTick> AxisTicks(const ViewRange& r, double width_px, double min_px = 90);

}  // namespace braid::view
