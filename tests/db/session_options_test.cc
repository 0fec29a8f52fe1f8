// A tuning session's options text (braid/session_options.h): the tuner
// compares it byte for byte on resume, so its bytes are pinned; it decodes to
// what was encoded, and damaged text is one line naming the option.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/session_options.h"

namespace braid {
namespace session_options_test {
namespace {

SessionOptions Te() {
  SessionOptions o;
  o.iters = 20;
  o.warmup = 2;
  o.budget = 12;
  o.time_budget_s = 90.5;
  o.seed = 42;
  o.link_gbps = 25;
  o.link_latency_us = 1.5;
  o.comm_dtype = DType::kBf16;
  o.runtime = "te";
  o.baseline = "ub_cfgs.yaml";
  return o;
}

// What `braid tune` stored before the codec wrote it, for a plain request
// and for one with every optional field: a session stored then resumes now.
TEST(SessionOptions, TextIsTheTunersAsBefore) {
  SessionOptions plain;
  plain.iters = 1;
  plain.seed = 42;
  EXPECT_EQ(EncodeSessionOptions(plain), R"({"budget":0,"iters":1,"link_gbps":0.0,"link_latency_us":0.0,"seed":42,)"
                                         R"("time_budget_s":0.0,"warmup":0})");
  EXPECT_EQ(EncodeSessionOptions(Te()),
            R"({"baseline":"ub_cfgs.yaml","budget":12,"comm_dtype":"bf16","iters":20,"link_gbps":25.0,)"
            R"("link_latency_us":1.5,"runtime":"te","seed":42,"time_budget_s":90.5,"warmup":2})");
}

TEST(SessionOptions, RoundTripThroughTheirText) {
  for (const SessionOptions& o : {SessionOptions{}, Te()}) {
    Result<SessionOptions> back = DecodeSessionOptions(EncodeSessionOptions(o), "session 1");
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, o);
  }
  // The largest seed survives (it is unsigned, not a double).
  SessionOptions big;
  big.seed = UINT64_MAX;
  Result<SessionOptions> back = DecodeSessionOptions(EncodeSessionOptions(big), "session 1");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->seed, UINT64_MAX);
}

// Options a session was stored without keep their defaults.
TEST(SessionOptions, AnEmptyObjectIsTheDefaults) {
  Result<SessionOptions> back = DecodeSessionOptions("{}", "session 2");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, SessionOptions{});
}

TEST(SessionOptions, DamagedTextIsOneLineNamingTheOption) {
  for (const auto& [text, problem] : std::vector<std::pair<std::string, std::string>>{
           {"{", "options JSON that does not parse"},
           {"[1]", "options JSON that is not an object"},
           {R"({"iters":"1"})", "an option 'iters' that is not an integer"},
           {R"({"warmup":1.5})", "an option 'warmup' that is not an integer"},
           {R"({"budget":4294967296})", "an option 'budget' that is not an integer"},
           {R"({"time_budget_s":"1"})", "an option 'time_budget_s' that is not a number"},
           {R"({"link_gbps":null})", "an option 'link_gbps' that is not a number"},
           {R"({"link_latency_us":[]})", "an option 'link_latency_us' that is not a number"},
           {R"({"seed":-1})", "an option 'seed' that is not a whole number"},
           {R"({"runtime":1})", "an option 'runtime' that is not a string"},
           {R"({"baseline":{}})", "an option 'baseline' that is not a string"},
           {R"({"comm_dtype":"fp9"})", "an option 'comm_dtype' that is not a dtype name"},
       }) {
    SCOPED_TRACE(text);
    Result<SessionOptions> r = DecodeSessionOptions(text, "session 3 in s.db");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), "damaged store: session 3 in s.db has " + problem);
  }
}

}  // namespace
}  // namespace session_options_test
}  // namespace braid
