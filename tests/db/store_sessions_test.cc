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
  ASSERT_TRUE(store.AddTrial(*session, {*run, R"({"algorithm":"ring"})", "ok", 123456789, "", ""}).ok());
  ASSERT_TRUE(
      store.AddTrial(*session, {std::nullopt, R"({"algorithm":"chunked","chunks":3})", "invalid", std::nullopt, "", ""})
          .ok());
  ASSERT_TRUE(store.AddTrial(*other, {std::nullopt, "", "failed", std::nullopt, "", ""}).ok());
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
  Result<int64_t> trial = store.AddTrial(*session, {99, "{}", "ok", 1, "", ""});
  ASSERT_FALSE(trial.ok());
  EXPECT_EQ(trial.status().message(), "no run 99 in " + path);
  EXPECT_EQ(store.AddTrial(*session, {std::nullopt, "{}", "", std::nullopt, "", ""}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store.SetSessionStatus(*session, "").code(), StatusCode::kInvalidArgument);
}

TEST(StoreSessions, TrialKeysAreUniqueWithinASessionAndKeepTheirSamples) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  Result<std::unique_ptr<Store>> opened = Store::Open(path);
  ASSERT_TRUE(opened.ok());
  Store& store = **opened;
  Result<int64_t> a = store.CreateSession({"k", "t", "sim", "exhaustive", 0, ""});
  Result<int64_t> b = store.CreateSession({"k", "t", "sim", "exhaustive", 0, ""});
  ASSERT_TRUE(a.ok() && b.ok());

  TrialInfo t{std::nullopt, "{}", "ok", 100, "fc1|ring chunks=1|r0", "[100,101,99]"};
  ASSERT_TRUE(store.AddTrial(*a, t).ok());
  Result<int64_t> again = store.AddTrial(*a, t);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(),
            "trial 'fc1|ring chunks=1|r0' is already recorded in tuning session " + std::to_string(*a) + " of " + path);
  EXPECT_TRUE(store.AddTrial(*b, t).ok()) << "keys are unique per session only";
  // Trials without a key are never in conflict.
  EXPECT_TRUE(store.AddTrial(*a, {std::nullopt, "{}", "ok", 1, "", ""}).ok());
  EXPECT_TRUE(store.AddTrial(*a, {std::nullopt, "{}", "ok", 2, "", ""}).ok());
  EXPECT_EQ(store.AddTrial(*a, {std::nullopt, "{}", "ok", 1, "x", "[1,"}).status().code(),
            StatusCode::kInvalidArgument);

  Result<std::vector<StoredTrial>> trials = store.ListTrials(*a);
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 3u);
  EXPECT_EQ((*trials)[0].trial.key, "fc1|ring chunks=1|r0");
  EXPECT_EQ((*trials)[0].trial.samples_json, "[100,101,99]");
  EXPECT_EQ((*trials)[1].trial.key, "");
  EXPECT_EQ((*trials)[1].trial.samples_json, "[]");
}

TEST(StoreSessions, TrialWithRunIsWrittenWholeOrNotAtAll) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  Result<std::unique_ptr<Store>> opened = Store::Open(path);
  ASSERT_TRUE(opened.ok());
  Store& store = **opened;
  Result<int64_t> session = store.CreateSession({"k", "t", "sim", "exhaustive", 0, ""});
  ASSERT_TRUE(session.ok());

  TrialInfo t{std::nullopt, R"({"algorithm":"ring"})", "ok", 250, "qkv|ring|r0", "[250]"};
  Result<Store::TrialIds> id = store.AddTrialWithRun(*session, t, SampleMeta(), {}, MakeEvents(1, 1, 1, 4), {});
  ASSERT_TRUE(id.ok()) << id.status().message();
  Result<std::vector<StoredTrial>> trials = store.ListTrials(*session);
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 1u);
  ASSERT_TRUE((*trials)[0].trial.run.has_value());
  EXPECT_EQ((*trials)[0].id, id->trial);
  EXPECT_EQ(*(*trials)[0].trial.run, id->run);
  Result<StoredRun> run = store.GetRun(*(*trials)[0].trial.run);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->event_count, 4);

  // The same key again: refused, and its run is rolled back with it.
  Result<Store::TrialIds> dup = store.AddTrialWithRun(*session, t, SampleMeta(), {}, MakeEvents(1, 1, 1, 4), {});
  ASSERT_FALSE(dup.ok());
  Result<std::vector<StoredRun>> runs = store.ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
  // A missing session writes nothing either.
  EXPECT_EQ(store.AddTrialWithRun(*session + 7, t, SampleMeta(), {}, {}, {}).status().code(), StatusCode::kNotFound);
  runs = store.ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
}

}  // namespace
}  // namespace braid
