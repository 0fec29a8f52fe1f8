// StatusOf and WithContext: a status passed on keeps its kind (and so the
// command's exit code) whatever message it carries.
#include "braid/status_context.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

TEST(StatusContext, StatusOfMakesEveryCodeWithItsMessage) {
  for (StatusCode code :
       {StatusCode::kInvalidArgument, StatusCode::kNotFound, StatusCode::kUnavailable, StatusCode::kInternal}) {
    const Status s = StatusOf(code, "what went wrong");
    EXPECT_EQ(s.code(), code);
    EXPECT_EQ(s.message(), "what went wrong");
  }
  const Status ok = StatusOf(StatusCode::kOk, "dropped");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.message(), "");
}

TEST(StatusContext, WithContextPrefixesTheMessageAndKeepsAUserErrorAUserError) {
  const Status s = WithContext(Status::NotFound("no run 7"), "reading runs.db");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(s.is_user_error());
  EXPECT_EQ(s.message(), "reading runs.db: no run 7");
  const Status failure = WithContext(Status::Unavailable("no GPU"), "rank 3");
  EXPECT_EQ(failure.code(), StatusCode::kUnavailable);
  EXPECT_FALSE(failure.is_user_error());
  EXPECT_EQ(failure.message(), "rank 3: no GPU");
  EXPECT_TRUE(WithContext(Status::Ok(), "anything").ok());
}

}  // namespace
}  // namespace braid
