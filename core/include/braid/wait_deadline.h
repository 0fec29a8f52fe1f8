// A user's bound on a wait (--timeout, seconds as a double) as steady-clock
// time. Past a century a bound is no bound, and a larger double would not
// convert to the clock's 64-bit nanoseconds (undefined behaviour; in practice
// a deadline already passed, so the wait fails at once): it is clamped there.
// Not a positive number (0, negative, NaN): no time at all.
#pragma once

#include <algorithm>
#include <chrono>

namespace braid {

inline std::chrono::steady_clock::duration WaitBound(double seconds) {
  constexpr double kCenturyS = 100 * 365.25 * 86400;
  const double s = seconds > 0 ? std::min(seconds, kCenturyS) : 0.0;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

inline std::chrono::steady_clock::time_point DeadlineAfter(double seconds) {
  return std::chrono::steady_clock::now() + WaitBound(seconds);
}

}  // namespace braid
