// The tuning session library (braid/tune.h) on the sim backend and a real
// store, with a clock the test drives: no outcome depends on machine speed.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../db/store_test_util.h"
#include "braid/planner.h"
#include "braid/run_record.h"
#include "braid/sim_backend.h"
#include "braid/sim_guide.h"
#include "braid/tune.h"

namespace braid {
namespace tune_session_test {
namespace {

using testing::TempDir;

// A clock that moves `step` forward each time it is read.
class SteppingClock {
 public:
  explicit SteppingClock(std::chrono::microseconds step) : step_(step) {}
  TuneClock clock() {
    return [this] {
      now_ += step_;
      return now_;
    };
  }

 private:
  std::chrono::steady_clock::time_point now_{};
  std::chrono::microseconds step_;
};

struct Session {
  TempDir dir;
  SimHardware hw;
  std::unique_ptr<SimBackend> sim;
  std::unique_ptr<Store> store;

  Session() {
    Result<SimHardware> h = LoadSimHardware("h100-sxm");
    EXPECT_TRUE(h.ok()) << h.status().message();
    hw = *h;
    sim = std::make_unique<SimBackend>(hw.gpu, hw.topo);
    Result<std::unique_ptr<Store>> s = Store::Open(dir.Path("tune.db"));
    EXPECT_TRUE(s.ok()) << s.status().message();
    store = std::move(*s);
  }

  TuneRequest Request(std::vector<TuneTarget> targets) const {
    TuneRequest q;
    q.targets = std::move(targets);
    q.workload_key = "test";
    q.topology = hw.topo.name;
    q.gpu = hw.topo.gpu;
    q.gpu_sms = hw.gpu.sm_count;
    q.backend = "sim";
    q.knobs = *KnobsOfBackend("sim");
    q.search.iters = 1;
    q.search.warmup = 0;
    q.search.recheck_max = 1;
    return q;
  }
};

TuneTarget Op(Op op, int64_t m, int tp) {
  return {std::string(OpName(op)), Workload{op, m, 8192, 8192, DType::kBf16, tp}, ""};
}

TEST(TuneSession, TimeBudgetEndsEachSearchOnTheDrivenClock) {
  Session s;
  TuneRequest q = s.Request({Op(Op::kAgGemm, 4096, 8), Op(Op::kGemmRs, 4096, 8)});
  // Each trial reads the clock about once; 1 ms a read and a 20 ms budget
  // leave each op about ten trials of its ~200 candidates.
  SteppingClock clock(std::chrono::milliseconds(1));
  q.clock = clock.clock();
  q.time_budget_s = 0.02;
  Result<TuneSummary> r = RunTuning(q, *s.sim, *s.store);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->results.size(), 2u);
  for (const TuneResult& res : r->results) {
    EXPECT_EQ(res.stopped_by, "time") << res.op;
    EXPECT_LT(res.trials, 20) << res.op;
    EXPECT_GT(res.candidates, 100) << res.op;
    EXPECT_GT(res.time_ns, 0) << res.op;
    EXPECT_GE(res.run, 0) << res.op;
  }
  auto session = s.store->GetSession(r->session);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->status, "done");
}

TEST(TuneSession, APresetsTimeIsItsTrialRunsMakespanAndABraidRunsToo) {
  Session s;
  TuneRequest q = s.Request({Op(Op::kAgGemm, 1024, 2), Op(Op::kGemmRs, 2048, 4)});
  Result<TuneSummary> r = RunTuning(q, *s.sim, *s.store);
  ASSERT_TRUE(r.ok()) << r.status().message();
  bool fused_seen = false;
  for (const TuneResult& res : r->results) {
    Result<RunRecord> rec = LoadRunRecord(*s.store, res.run);
    ASSERT_TRUE(rec.ok()) << rec.status().message();
    EXPECT_DOUBLE_EQ(rec->figures.metrics.overall[Metric::kMakespan].p50, res.time_ns) << res.op;
    ASSERT_TRUE(rec->figures.lower_bound.has_value()) << "trial runs carry the target's lower bound";
    EXPECT_GT(rec->figures.efficiency.p50, 0);
    // What `braid run` of the same config reports (10 iterations after 2 warm-up).
    Result<Plan> plan = BuildPlan(res.workload, res.config);
    ASSERT_TRUE(plan.ok());
    RunOptions o;
    o.iters = 10;
    o.warmup = 2;
    Result<RunOutput> out = s.sim->Run(*plan, o);
    ASSERT_TRUE(out.ok());
    EXPECT_DOUBLE_EQ(ComputeRunMetrics(out->events).overall[Metric::kMakespan].p50, res.time_ns) << res.op;
  }
  // A fused config on its own, as the tuner stores it and as a run reports it.
  for (int64_t run = 1;; ++run) {
    Result<RunRecord> rec = LoadRunRecord(*s.store, run);
    if (!rec.ok()) break;
    if (rec->config.value("algorithm", "") != "fused") continue;
    fused_seen = true;
    auto trials = s.store->ListTrials(r->session);
    ASSERT_TRUE(trials.ok());
    for (const StoredTrial& t : *trials) {
      if (t.trial.run == run) {
        EXPECT_NEAR(double(t.trial.time_ns.value_or(-1)), rec->figures.metrics.overall[Metric::kMakespan].p50, 0.5);
      }
    }
  }
  EXPECT_TRUE(fused_seen);
}

TEST(TuneSession, TopLevelTrialsAreTheSumOverOpsAndTheRecordedTrials) {
  Session s;
  TuneRequest q = s.Request({Op(Op::kAgGemm, 1024, 2), Op(Op::kGemmRs, 1024, 2)});
  Result<TuneSummary> r = RunTuning(q, *s.sim, *s.store);
  ASSERT_TRUE(r.ok()) << r.status().message();
  int sum = 0;
  for (const TuneResult& res : r->results) sum += res.trials;
  EXPECT_EQ(r->trials, sum);
  auto trials = s.store->ListTrials(r->session);
  ASSERT_TRUE(trials.ok());
  EXPECT_EQ(int(trials->size()), sum);
}

TEST(TuneSession, RequestsThatCannotRunWriteNothing) {
  Session s;
  std::vector<TuneRequest> bad;
  bad.push_back(s.Request({}));
  TuneRequest guided = s.Request({Op(Op::kAgGemm, 1024, 2)});
  guided.search.strategy = Strategy::kGuided;  // no guide given
  bad.push_back(guided);
  TuneRequest nan_budget = s.Request({Op(Op::kAgGemm, 1024, 2)});
  nan_budget.time_budget_s = std::nan("");
  bad.push_back(nan_budget);
  TuneRequest odd = s.Request({Op(Op::kAgGemm, 1023, 8)});  // 1023 rows do not split over 8 ranks
  bad.push_back(odd);
  TuneRequest resume = s.Request({Op(Op::kAgGemm, 1024, 2)});
  resume.resume = true;  // nothing to resume
  bad.push_back(resume);
  for (const TuneRequest& q : bad) {
    Result<TuneSummary> r = RunTuning(q, *s.sim, *s.store);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().message();
  }
  auto sessions = s.store->ListSessions();
  ASSERT_TRUE(sessions.ok());
  EXPECT_TRUE(sessions->empty()) << "no session row for a rejected request";
  auto runs = s.store->ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
}

TEST(TuneSession, GuidedUsesTheHardwareLoadedOnce) {
  Session s;
  TuneRequest q = s.Request({Op(Op::kGemmRs, 2048, 4)});
  q.search.strategy = Strategy::kGuided;
  const SimHardware hw = s.hw;
  q.make_guide = [hw](const TuneTarget& t) -> Result<Guide> { return MakeSimGuide(t.w, hw); };
  Result<TuneSummary> r = RunTuning(q, *s.sim, *s.store);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_LT(r->results[0].trials, r->results[0].candidates / 2) << "guided measures a small share";
  EXPECT_GE(r->results[0].serial_ns / r->results[0].time_ns, 1.0);
}

// A target whose serial baseline measures faster than any candidate: the
// search's best must not be handed out.
class SerialWinsLate : public TrialRunner {
 public:
  Result<Measurement> Measure(size_t, const OverlapConfig& c, int warmup, int iters, std::string_view) override {
    const bool serial = c.algorithm == Algorithm::kSerial;
    const int n = serial ? serial_calls_++ : 0;
    // Serial: slow in the search (2000), fast as the baseline (900).
    const double t = serial ? (n == 0 ? 2000.0 : 900.0) : 1000.0 + double(c.chunks);
    return Summarize(std::vector<double>(size_t(iters), t), warmup + iters);
  }

 private:
  int serial_calls_ = 0;
};

TEST(TuneOne, NeverKeepsAWinnerSlowerThanABaselineAndSaysSo) {
  const TuneTarget t = Op(Op::kGemmRs, 4096, 4);
  const std::vector<OverlapConfig> space = BuildSearchSpace(t.w, *KnobsOfBackend("cpu"));
  SerialWinsLate runner;
  SearchOptions o;
  o.iters = 3;
  o.warmup = 0;
  Result<TuneResult> r = TuneOne(t, space, runner, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->config.algorithm, Algorithm::kSerial);
  EXPECT_DOUBLE_EQ(r->time_ns, 900.0);
  EXPECT_NE(r->note.find("slower than serial"), std::string::npos) << r->note;
  EXPECT_LE(r->time_ns, r->serial_ns);
  EXPECT_LE(r->time_ns, r->te_default_ns);
}

}  // namespace
}  // namespace tune_session_test
}  // namespace braid
