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

Result<std::string> Named(int id) {
  if (id < 0) return Status::NotFound("no run " + std::to_string(id));
  return "run " + std::to_string(id);
}

// Declares, assigns an existing variable, and returns early: the value of the
// last call is never reached.
Result<std::string> JoinNamed(int a, int b, int* calls) {
  BRAID_ASSIGN_OR_RETURN(auto first, Named(a));
  ++*calls;
  std::string second;
  BRAID_ASSIGN_OR_RETURN(second, Named(b));
  ++*calls;
  return first + "+" + second;
}

Status CheckNamed(int id) {
  BRAID_ASSIGN_OR_RETURN(const std::string name, Named(id));
  return name.empty() ? Status::Internal("empty") : Status::Ok();
}

TEST(AssignOrReturn, MovesTheValueIntoADeclarationOrAVariable) {
  int calls = 0;
  const Result<std::string> r = JoinNamed(1, 2, &calls);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "run 1+run 2");
  EXPECT_EQ(calls, 2);
}

TEST(AssignOrReturn, ReturnsTheFirstErrorAndStopsThere) {
  int calls = 0;
  const Result<std::string> first = JoinNamed(-1, 2, &calls);
  EXPECT_EQ(first.status().message(), "no run -1");
  EXPECT_EQ(calls, 0);
  const Result<std::string> second = JoinNamed(1, -2, &calls);
  EXPECT_EQ(second.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(second.status().message(), "no run -2");
  EXPECT_EQ(calls, 1);
}

TEST(AssignOrReturn, WorksInAFunctionReturningStatus) {
  EXPECT_TRUE(CheckNamed(3).ok());
  EXPECT_EQ(CheckNamed(-3).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace braid
