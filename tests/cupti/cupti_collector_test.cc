// The collector's session side needs a GPU; here (and in CI) there is none.
// These tests check that it fails cleanly, promptly and repeatably, and the
// checking macro's text.
#include "braid/cupti_collector.h"

#include <cupti_version.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>

#include "braid/cupti_check.h"

namespace braid {
namespace {

// Runs f on a thread; a hang fails the whole binary instead of stalling CI.
template <typename F>
auto WithinSeconds(int seconds, F f) {
  auto future = std::async(std::launch::async, std::move(f));
  if (future.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
    std::fprintf(stderr, "CUPTI call did not return within %d s\n", seconds);
    std::_Exit(1);
  }
  return future.get();
}

TEST(CuptiCheck, FailureNamesCallErrorAndLocation) {
  CUpti_Activity* rec = nullptr;
  const Status s = BRAID_CUPTI_STATUS(cuptiActivityGetNextRecord(nullptr, 0, &rec));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("cuptiActivityGetNextRecord(nullptr, 0, &rec) failed"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("CUPTI_ERROR_INVALID_PARAMETER (1)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cupti_collector_test.cc:"), std::string::npos) << s.message();
}

TEST(CuptiCheck, SuccessIsOk) {
  uint32_t version = 0;
  EXPECT_TRUE(BRAID_CUPTI_STATUS(cuptiGetVersion(&version)).ok());
  EXPECT_GT(version, 0u);
}

TEST(CuptiCheck, MissingDriverIsUnavailable) {
  EXPECT_EQ(CuptiError("call()", CUPTI_ERROR_UNKNOWN, "f.cc", 1).code(), StatusCode::kUnavailable);
  EXPECT_EQ(CuptiError("call()", CUPTI_ERROR_NOT_INITIALIZED, "f.cc", 1).code(), StatusCode::kUnavailable);
  EXPECT_EQ(CuptiError("call()", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "f.cc", 1).code(), StatusCode::kUnavailable);
  EXPECT_EQ(CuptiError("call()", CUPTI_ERROR_INVALID_KIND, "f.cc", 1).code(), StatusCode::kInternal);
}

// Without a GPU Start fails with a Status; with one it succeeds and a Stop
// follows. Either way it returns, and nothing is left half-started.
TEST(CuptiCollector, StartReturnsAStatusWithoutCrashingOrHanging) {
  CuptiCollector c;
  const Status start = WithinSeconds(120, [&] { return c.Start(); });
  if (start.ok()) {
    EXPECT_TRUE(c.running());
    const Status stop = WithinSeconds(120, [&] { return c.Stop(); });
    EXPECT_TRUE(stop.ok()) << stop.message();
  } else {
    EXPECT_FALSE(c.running());
    EXPECT_NE(start.message().find("cannot start CUPTI activity tracing"), std::string::npos) << start.message();
    EXPECT_NE(start.message().find("cuptiActivity"), std::string::npos) << start.message();
    EXPECT_TRUE(c.Stop().ok());  // nothing to stop
  }
  EXPECT_FALSE(c.running());
  EXPECT_TRUE(c.TakeEvents().empty() || start.ok());
  const ActivityStats s = c.stats();
  EXPECT_EQ(s.dropped_records, 0u);
  EXPECT_EQ(s.bad_buffers, 0u);
}

TEST(CuptiCollector, FailedStartLeavesNothingBehind) {
  // A second collector after a failed (or stopped) first one must get the
  // same answer, not "another collector is running".
  Status first;
  {
    CuptiCollector c;
    first = WithinSeconds(120, [&] { return c.Start(); });
    if (first.ok()) {
      EXPECT_TRUE(WithinSeconds(120, [&] { return c.Stop(); }).ok());
    }
  }
  CuptiCollector again;
  const Status second = WithinSeconds(120, [&] { return again.Start(); });
  EXPECT_EQ(second.ok(), first.ok()) << second.message();
  EXPECT_EQ(second.message().find("another collector"), std::string::npos) << second.message();
  if (second.ok()) {
    EXPECT_TRUE(WithinSeconds(120, [&] { return again.Stop(); }).ok());
  }
}

TEST(CuptiCollector, OnlyOneCollectorRunsAtATime) {
  CuptiCollector first;
  const Status s = WithinSeconds(120, [&] { return first.Start(); });
  if (!s.ok()) GTEST_SKIP() << "no GPU here: " << s.message();
  CuptiCollector second;
  const Status refused = second.Start();
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.message().find("another collector"), std::string::npos);
  EXPECT_FALSE(first.Start().ok());  // already running
  EXPECT_TRUE(WithinSeconds(120, [&] { return first.Stop(); }).ok());
}

TEST(CuptiCollector, FlushBeforeStartIsRefused) {
  CuptiCollector c;
  EXPECT_EQ(c.Flush().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(c.Stop().ok());
  EXPECT_TRUE(c.LaneNames().empty());
}

TEST(CuptiCollector, CorrelationCallsReturnStatus) {
  // With no driver CUPTI refuses; with one they pair up. No crash either way.
  const Status push = WithinSeconds(120, [] { return CuptiCollector::PushCorrelation(17); });
  const Status pop = WithinSeconds(120, [] { return CuptiCollector::PopCorrelation(); });
  if (push.ok()) {
    EXPECT_TRUE(pop.ok()) << pop.message();
  } else {
    EXPECT_NE(push.message().find("cuptiActivityPushExternalCorrelationId"), std::string::npos);
  }
  const Result<int64_t> t = WithinSeconds(120, [] { return CuptiCollector::Timestamp(); });
  if (t.ok()) {
    EXPECT_GT(*t, 0);
  }
}

}  // namespace
}  // namespace braid
