// Result<T>: a value or an error, never an "ok" without a value.
#include "braid/status.h"

#include <gtest/gtest.h>

#include <string>

namespace braid {
namespace {

TEST(Result, HoldsAValue) {
  const Result<std::string> r = std::string("plan");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "plan");
  EXPECT_TRUE(r.status().ok());
}

TEST(Result, HoldsAnError) {
  const Result<std::string> r = Status::NotFound("no run 7");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "no run 7");
}

TEST(Result, BuiltFromAnOkStatusIsAnInternalError) {
  const Result<std::string> r = Status::Ok();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().message(), "Result built from an OK status");
}

}  // namespace
}  // namespace braid
