// The codec's small texts (braid/stored_text.h): the trial-key prefix a
// session's trials of one target share, and the one start of every
// damaged-store message.
#include <gtest/gtest.h>

#include "braid/stored_text.h"

namespace braid {
namespace stored_keys_test {
namespace {

// The prefix is where a target's keys start and the key decodes back to
// that target; a target whose name extends another's is not in its range.
TEST(TrialKeyPrefix, StartsEveryKeyOfItsTargetAndNoOther) {
  const std::string key = EncodeTrialKey({"fc1", "ring chunks=2", "search"});
  EXPECT_EQ(TrialKeyPrefix("fc1"), "fc1|");
  EXPECT_TRUE(key.starts_with(TrialKeyPrefix("fc1")));
  EXPECT_FALSE(EncodeTrialKey({"fc10", "serial", "baseline"}).starts_with(TrialKeyPrefix("fc1")));
  Result<TrialKey> back = DecodeTrialKey(key);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(TrialKeyPrefix(back->target), TrialKeyPrefix("fc1"));
}

TEST(TrialKeyPrefix, ADamagedKeyIsRefusedNamingIt) {
  Result<TrialKey> r = DecodeTrialKey("fc1|ring");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "trial key 'fc1|ring' is not target|config|stage");
}

// Messages whose detail follows in a reader's own words start as the
// codec's own do.
TEST(DamagedStoreMessage, EveryFormStartsTheSame) {
  EXPECT_EQ(DamagedStorePrefix("run 7 of s.db"), "damaged store: run 7 of s.db");
  EXPECT_EQ(DamagedStore("run 7 of s.db", "no samples").message(), "damaged store: run 7 of s.db has no samples");
  EXPECT_EQ(DamagedStore("run 7 of s.db", "no samples").code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stored_keys_test
}  // namespace braid
