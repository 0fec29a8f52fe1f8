// CheckRunOptions: the one bound on `warmup` and `iters` that the cpu, cpu
// process and cuda backends check before running.
#include "braid/run_options_check.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

RunOptions Options(int warmup, int iters) {
  RunOptions o;
  o.warmup = warmup;
  o.iters = iters;
  return o;
}

TEST(RunOptionsCheck, AcceptsZeroToTheMaximumInclusive) {
  EXPECT_TRUE(CheckRunOptions(Options(0, 0)).ok());
  EXPECT_TRUE(CheckRunOptions(Options(kMaxRunIterations, kMaxRunIterations)).ok());
  EXPECT_TRUE(CheckRunOptions(RunOptions()).ok());  // the defaults
}

TEST(RunOptionsCheck, RefusesNegativeOrTooManyAsAUserErrorNamingBothFields) {
  for (const RunOptions& o :
       {Options(-1, 5), Options(1, -1), Options(kMaxRunIterations + 1, 5), Options(1, kMaxRunIterations + 1)}) {
    const Status s = CheckRunOptions(o);
    ASSERT_FALSE(s.ok()) << o.warmup << " " << o.iters;
    EXPECT_TRUE(s.is_user_error());
    EXPECT_EQ(s.message(), "`warmup` and `iters` must be between 0 and 1000000");
  }
}

}  // namespace
}  // namespace braid
