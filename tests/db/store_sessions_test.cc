#include <gtest/gtest.h>

#include "braid/store.h"
#include "store_test_util.h"

namespace braid {
namespace {

using testing::MakeEvents;
using testing::SampleMeta;
using testing::TempDir;

TEST(StoreSessions, SessionsAndTrialsRoundTrip) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  Result<std::unique_ptr<Store>> opened = Store::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Store& store = **opened;

  const SessionInfo info{"llama3-70b prefill seq=4096", "h100-sxm", "sim", "halving", 64, R"({"seed":7})"};
  Result<int64_t> session = store.CreateSession(info);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Result<int64_t> other = store.CreateSession({"gemm_rs M=4096", "a100-sxm", "cpu", "random", 8, ""});
  ASSERT_TRUE(other.ok());

  Result<int64_t> run = store.WriteRun(SampleMeta(), {}, MakeEvents(1, 1, 1, 4), {});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store.AddTrial(*session, {*run, R"({"algorithm":"ring"})", "ok", 123456789}).ok());
  ASSERT_TRUE(store
                  .AddTrial(*session,
                            {std::nullopt, R"({"algorithm":"chunked","chunks":3})", "invalid", std::nullopt})
                  .ok());
  ASSERT_TRUE(store.AddTrial(*other, {std::nullopt, "", "failed", std::nullopt}).ok());
  ASSERT_TRUE(store.SetSessionStatus(*session, "done").ok());

  Result<StoredSession> got = store.GetSession(*session);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->status, "done");
  EXPECT_EQ(got->info.workload_key, info.workload_key);
  EXPECT_EQ(got->info.topology, "h100-sxm");
  EXPECT_EQ(got->info.backend, "sim");
  EXPECT_EQ(got->info.strategy, "halving");
  EXPECT_EQ(got->info.budget, 64);
  EXPECT_EQ(got->info.options_json, info.options_json);
  EXPECT_FALSE(got->created_at.empty());

  Result<std::vector<StoredSession>> sessions = store.ListSessions();
  ASSERT_TRUE(sessions.ok());
  ASSERT_EQ(sessions->size(), 2u);
  EXPECT_EQ((*sessions)[1].status, "running");
  EXPECT_EQ((*sessions)[1].info.options_json, "{}");

  Result<std::vector<StoredTrial>> trials = store.ListTrials(*session);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  ASSERT_EQ(trials->size(), 2u);
  const StoredTrial& a = (*trials)[0];
  EXPECT_EQ(a.session, *session);
  EXPECT_EQ(a.trial.run, *run);
  EXPECT_EQ(a.trial.config_json, R"({"algorithm":"ring"})");
  EXPECT_EQ(a.trial.status, "ok");
  EXPECT_EQ(a.trial.time_ns, 123456789);
  const StoredTrial& b = (*trials)[1];
  EXPECT_LT(a.id, b.id);
  EXPECT_FALSE(b.trial.run.has_value());
  EXPECT_FALSE(b.trial.time_ns.has_value());
  EXPECT_EQ(b.trial.status, "invalid");

  Result<std::vector<StoredTrial>> other_trials = store.ListTrials(*other);
  ASSERT_TRUE(other_trials.ok());
  ASSERT_EQ(other_trials->size(), 1u);
  EXPECT_EQ((*other_trials)[0].trial.config_json, "{}");
}

TEST(StoreSessions, MissingParentsAreNotFound) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  Result<std::unique_ptr<Store>> opened = Store::Open(path);
  ASSERT_TRUE(opened.ok());
  Store& store = **opened;
  EXPECT_EQ(store.GetSession(5).status().message(), "no tuning session 5 in " + path);
  EXPECT_EQ(store.SetSessionStatus(5, "done").code(), StatusCode::kNotFound);
  EXPECT_EQ(store.ListTrials(5).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store.AddTrial(5, {}).status().code(), StatusCode::kNotFound);

  Result<int64_t> session = store.CreateSession({"k", "t", "sim", "random", 1, ""});
  ASSERT_TRUE(session.ok());
  Result<int64_t> trial = store.AddTrial(*session, {99, "{}", "ok", 1});
  ASSERT_FALSE(trial.ok());
  EXPECT_EQ(trial.status().message(), "no run 99 in " + path);
  EXPECT_EQ(store.AddTrial(*session, {std::nullopt, "{}", "", std::nullopt}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store.SetSessionStatus(*session, "").code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace braid
