#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "braid/search.h"

namespace braid {
namespace {

// n distinct configs (the strategies only index them).
std::vector<OverlapConfig> Space(int n) {
  std::vector<OverlapConfig> s(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    s[size_t(i)].algorithm = Algorithm(i % 5);
    s[size_t(i)].chunks = 1 + i;
  }
  return s;
}

// A target whose true times are `truth`, measured with relative noise.
class FakeTarget : public TrialRunner {
 public:
  FakeTarget(std::vector<double> truth, double noise, uint64_t seed = 7)
      : truth_(std::move(truth)), noise_(noise), rng_(seed) {}

  Result<Measurement> Measure(size_t c, const OverlapConfig&, int warmup, int iters, std::string_view stage) override {
    if (fail_at_ >= 0 && int(calls_.size()) == fail_at_) return Status::Internal("the target fell over");
    calls_.emplace_back(c, std::string(stage));
    std::vector<double> samples;
    for (int i = 0; i < iters; ++i) {
      // Box–Muller: portable across standard libraries.
      const double u1 = (double(rng_() >> 11) + 0.5) / 9007199254740992.0,
                   u2 = double(rng_() >> 11) / 9007199254740992.0;
      const double z = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      samples.push_back(truth_[c] * (1 + noise_ * z));
    }
    return Summarize(samples, warmup + iters);
  }
  bool OutOfTime() const override { return time_limit_ >= 0 && int(calls_.size()) >= time_limit_; }

  std::vector<std::pair<size_t, std::string>> calls_;
  int fail_at_ = -1;
  int time_limit_ = -1;

 private:
  std::vector<double> truth_;
  double noise_;
  std::mt19937_64 rng_;
};

std::vector<double> Landscape(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(1000.0 + double(rng() % 1000));
  return t;
}

double Best(const std::vector<double>& t) { return *std::min_element(t.begin(), t.end()); }

TEST(Search, ExhaustiveMeasuresEverythingOnceAndFindsTheOptimumWithoutNoise) {
  const auto truth = Landscape(40, 1);
  FakeTarget target(truth, 0.0);
  SearchOptions o;
  Result<SearchOutcome> r = Search(Space(40), target, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(truth[r->best], Best(truth));
  std::set<std::pair<size_t, std::string>> unique(target.calls_.begin(), target.calls_.end());
  EXPECT_EQ(unique.size(), target.calls_.size()) << "no candidate measured twice at one stage";
  int full = 0;
  for (const auto& [c, stage] : target.calls_) full += stage == "full";
  EXPECT_EQ(full, 40);
  EXPECT_EQ(r->iterations, int64_t(r->trials.size() - r->rechecked.size()) * 22 + int64_t(r->rechecked.size()) * 11);
}

TEST(Search, CloseContendersAreMeasuredAgainBeforeAWinnerIsDeclared) {
  // Two configs 0.5 % apart under 3 % noise: both rechecked; a distant one not.
  std::vector<double> truth = {2000, 1000, 1005, 1500};
  FakeTarget target(truth, 0.03);
  Result<SearchOutcome> r = Search(Space(4), target, SearchOptions{});
  ASSERT_TRUE(r.ok());
  std::set<size_t> rechecked(r->rechecked.begin(), r->rechecked.end());
  EXPECT_TRUE(rechecked.count(1) && rechecked.count(2));
  EXPECT_FALSE(rechecked.count(0));
  EXPECT_FALSE(rechecked.count(3));
  EXPECT_TRUE(r->best == 1 || r->best == 2);
  EXPECT_EQ(r->best_measurement.samples_ns.size(), 30u) << "full (20) and recheck (10) samples pooled";
}

TEST(Search, ClearWinnerIsNotRechecked) {
  FakeTarget target({2000, 1000, 3000}, 0.001);
  Result<SearchOutcome> r = Search(Space(3), target, SearchOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->best, 1u);
  EXPECT_TRUE(r->rechecked.empty());
  EXPECT_EQ(r->trials.size(), 3u);
}

TEST(Search, HalvingAndGuidedFindANearOptimumWithAFractionOfTheIterations) {
  int halving_ok = 0, guided_ok = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const auto truth = Landscape(200, seed);
    FakeTarget full_target(truth, 0.03, seed);
    Result<SearchOutcome> ex = Search(Space(200), full_target, SearchOptions{});
    ASSERT_TRUE(ex.ok());

    FakeTarget h_target(truth, 0.03, seed);
    SearchOptions h;
    h.strategy = Strategy::kHalving;
    Result<SearchOutcome> hr = Search(Space(200), h_target, h);
    ASSERT_TRUE(hr.ok());
    EXPECT_LE(double(hr->iterations), 0.2 * double(ex->iterations)) << "seed " << seed;
    halving_ok += truth[hr->best] <= 1.02 * Best(truth);

    // A guide that knows the landscape up to 10 % error.
    FakeTarget g_target(truth, 0.03, seed);
    SearchOptions g;
    g.strategy = Strategy::kGuided;
    std::mt19937_64 rng(seed * 31);
    std::vector<double> model;
    for (double t : truth) model.push_back(t * (0.9 + 0.2 * double(rng() % 1000) / 1000));
    const std::vector<OverlapConfig> space = Space(200);
    g.guide = [&](const OverlapConfig& c) -> Result<double> { return model[size_t(c.chunks - 1)]; };
    Result<SearchOutcome> gr = Search(space, g_target, g);
    ASSERT_TRUE(gr.ok()) << gr.status().message();
    EXPECT_LE(double(gr->iterations), 0.2 * double(ex->iterations)) << "seed " << seed;
    guided_ok += truth[gr->best] <= 1.02 * Best(truth);
  }
  EXPECT_GE(halving_ok, 9);
  EXPECT_GE(guided_ok, 9);
}

TEST(Search, GuidedMeasuresTheGuidesBestOfEveryAlgorithm) {
  const std::vector<OverlapConfig> space = Space(50);
  FakeTarget target(Landscape(50, 3), 0.0);
  SearchOptions g;
  g.strategy = Strategy::kGuided;
  // The guide ranks by index: family i%5 has its best at index i.
  g.guide = [](const OverlapConfig& c) -> Result<double> { return double(c.chunks); };
  Result<SearchOutcome> r = Search(space, target, g);
  ASSERT_TRUE(r.ok());
  std::set<size_t> full;
  for (const auto& [c, stage] : target.calls_) {
    if (stage == "full") full.insert(c);
  }
  EXPECT_EQ(full.size(), 6u) << "12 % of 50, rounded up";
  for (size_t c = 0; c < 5; ++c) EXPECT_TRUE(full.count(c)) << "family " << c << "'s best by the guide";
}

TEST(Search, RandomSamplesDependOnTheSeedOnly) {
  auto run = [](uint64_t seed) {
    FakeTarget target(Landscape(100, 2), 0.0);
    SearchOptions o;
    o.strategy = Strategy::kRandom;
    o.seed = seed;
    EXPECT_TRUE(Search(Space(100), target, o).ok());
    std::set<size_t> full;
    for (const auto& [c, stage] : target.calls_) {
      if (stage == "full") full.insert(c);
    }
    return full;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
  EXPECT_EQ(run(5).size(), 20u);
}

TEST(Search, BudgetsStopTheSearchAndTheBestSoFarWins) {
  const auto truth = Landscape(40, 4);
  FakeTarget target(truth, 0.0);
  SearchOptions o;
  o.budget = 10;
  Result<SearchOutcome> r = Search(Space(40), target, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->stopped_by_budget);
  EXPECT_EQ(r->trials.size(), 10u);
  EXPECT_EQ(truth[r->best], *std::min_element(truth.begin(), truth.begin() + 10));

  FakeTarget timed(truth, 0.0);
  timed.time_limit_ = 7;
  Result<SearchOutcome> t = Search(Space(40), timed, SearchOptions{});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->stopped_by_time);
  EXPECT_EQ(t->trials.size(), 7u);

  // Out of time before anything was measured: the first candidate is still
  // measured fully, so a slow machine gets a winner rather than an error.
  FakeTarget none(truth, 0.0);
  none.time_limit_ = 0;
  Result<SearchOutcome> first = Search(Space(40), none, SearchOptions{});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->stopped_by_time);
  EXPECT_EQ(first->best, 0u);
  ASSERT_EQ(first->trials.size(), 1u);
  EXPECT_EQ(first->trials[0].stage, "full");

  // Halving out of time in its first rung: the rung's best is measured fully.
  SearchOptions halving_timed;
  halving_timed.strategy = Strategy::kHalving;
  FakeTarget rung(truth, 0.0);
  rung.time_limit_ = 6;
  Result<SearchOutcome> partial = Search(Space(40), rung, halving_timed);
  ASSERT_TRUE(partial.ok()) << partial.status().message();
  EXPECT_TRUE(partial->stopped_by_time);
  EXPECT_EQ(truth[partial->best], *std::min_element(truth.begin(), truth.begin() + 6));
  EXPECT_EQ(partial->trials.back().stage, "full");
  SearchOptions halving;
  halving.strategy = Strategy::kHalving;
  halving.budget = 5;  // spent on the first rung
  FakeTarget h(truth, 0.0);
  EXPECT_EQ(Search(Space(40), h, halving).status().message(),
            "the trial budget ended the search before any candidate was fully measured");
}

TEST(Search, BadOptionsAndTargetFailuresAreErrors) {
  FakeTarget target(Landscape(5, 1), 0.0);
  SearchOptions o;
  EXPECT_EQ(Search({}, target, o).status().code(), StatusCode::kInvalidArgument);
  o.budget = -1;
  EXPECT_EQ(Search(Space(5), target, o).status().message(), "`budget` must not be negative");
  SearchOptions g;
  g.strategy = Strategy::kGuided;
  EXPECT_EQ(Search(Space(5), target, g).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseStrategy("bayesian").status().message(),
            "unknown strategy 'bayesian' (known: exhaustive, random, halving, guided)");
  FakeTarget failing(Landscape(5, 1), 0.0);
  failing.fail_at_ = 2;
  EXPECT_EQ(Search(Space(5), failing, SearchOptions{}).status().message(), "the target fell over");
}

TEST(Search, PlannedTrialsMatchWhatTheStrategiesDoWithoutNoise) {
  for (Strategy s : {Strategy::kExhaustive, Strategy::kRandom, Strategy::kHalving}) {
    FakeTarget target(Landscape(120, 9), 0.0);
    SearchOptions o;
    o.strategy = s;
    Result<SearchOutcome> r = Search(Space(120), target, o);
    ASSERT_TRUE(r.ok());
    EXPECT_LE(int(r->trials.size()), PlannedTrials(o, 120)) << StrategyName(s);
    EXPECT_GE(int(r->trials.size()), PlannedTrials(o, 120) - o.recheck_max) << StrategyName(s);
  }
}

}  // namespace
}  // namespace braid
