// A --timeout as steady-clock time: huge values clamp to a century instead
// of overflowing into the past; values that are not positive give no time.
#include "braid/wait_deadline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

namespace braid {
namespace {

using std::chrono::hours;
using std::chrono::steady_clock;

TEST(WaitDeadline, HugeBoundsClampToACenturyAndStayInTheFuture) {
  const steady_clock::duration century = WaitBound(100 * 365.25 * 86400);
  for (double s : {1e300, std::numeric_limits<double>::infinity(), 1e12, 4e9}) {
    EXPECT_EQ(WaitBound(s), century) << s;
    EXPECT_GT(DeadlineAfter(s), steady_clock::now() + hours(24 * 365 * 99)) << s;
  }
  EXPECT_EQ(WaitBound(1e9), std::chrono::duration_cast<steady_clock::duration>(std::chrono::seconds(1000000000)));
}

TEST(WaitDeadline, OrdinaryBoundsAreExactAndNonPositiveOnesAreZero) {
  EXPECT_EQ(WaitBound(0.25), std::chrono::duration_cast<steady_clock::duration>(std::chrono::milliseconds(250)));
  EXPECT_EQ(WaitBound(300), std::chrono::duration_cast<steady_clock::duration>(std::chrono::seconds(300)));
  for (double s : {0.0, -1.0, -1e300, std::nan("")}) EXPECT_EQ(WaitBound(s), steady_clock::duration::zero()) << s;
}

}  // namespace
}  // namespace braid
