// Search strategies over a search space (braid/search_space.h).
//
//   exhaustive  every candidate, full measurement
//   random      a seeded sample of the space (default 20 %), full measurement
//   halving     successive halving: one timed iteration for all, the best
//               quarter again with 4, the best quarter of those with a full
//               measurement
//   guided      rank the whole space with a cheap model (the sim backend),
//               then measure only the most promising on the target: the
//               guide's best, and its best of every algorithm, so an error of
//               the model in one family cannot hide another
//
// Every strategy ends the same way: candidates whose median is within
// `recheck_within` of the best, or whose confidence interval overlaps the
// best's, are measured again and their samples pooled before the winner is
// declared — one lucky iteration does not win.
//
// A trial is one measurement of one candidate on the target; it costs its
// warm-up plus timed iterations. Budgets: a number of trials, or time (the
// runner says when it is out of time); the best fully measured candidate so
// far wins when a budget ends the search. When time runs out before any
// candidate was fully measured, the best partially measured one (or the
// first of the space) is measured fully all the same, so a slow machine
// still gets a winner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/budgets.h"
#include "braid/measurement.h"
#include "braid/overlap_config.h"
#include "braid/status.h"

namespace braid {

enum class Strategy { kExhaustive, kRandom, kHalving, kGuided };

std::string_view StrategyName(Strategy s);
Result<Strategy> ParseStrategy(std::string_view name);  // Invalid lists the known names

// Measures candidates on the target. A failure aborts the search (the space
// holds only valid configs, so a failure is the target's or the store's).
class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  // `stage` tells measurements of one candidate apart ("full", "rung0",
  // "recheck"); a runner that records trials keys them by it.
  virtual Result<Measurement> Measure(size_t candidate, const OverlapConfig& config, int warmup, int iters,
                                      std::string_view stage) = 0;
  virtual bool OutOfTime() const { return false; }
};

// Predicted time of a config (guided): smaller is better.
using Guide = std::function<Result<double>(const OverlapConfig&)>;

struct SearchProgress {
  int trials_done = 0;
  int trials_planned = 0;  // the strategy's plan for this space (or the budget)
  size_t best = 0;         // best fully measured candidate so far
  double best_ns = 0;      // its median; 0 while there is none
};

struct SearchOptions {
  Strategy strategy = Strategy::kExhaustive;
  int warmup = 2, iters = 20;  // one full measurement, each at most kMaxTrialIterations
  int budget = 0;              // most trials; 0: the strategy's own plan
  uint64_t seed = 1;           // random's sample
  double recheck_within = 0.02;
  int recheck_max = 3;  // contenders measured again, the best included
  double random_fraction = 0.2;
  double guided_fraction = 0.12;       // share of the space guided measures (at least 3)
  double guided_refine_within = 0.05;  // guided refines the algorithms this close to the best
  Guide guide;                         // guided only
  std::function<void(const SearchProgress&)> on_trial;
};

struct TrialRecord {
  size_t candidate = 0;
  std::string stage;
  Measurement measurement;
};

struct SearchOutcome {
  size_t best = 0;               // index into the space
  Measurement best_measurement;  // its full and recheck samples pooled
  std::vector<TrialRecord> trials;
  int64_t iterations = 0;  // warm-up + timed, over all trials
  std::vector<size_t> rechecked;
  bool stopped_by_budget = false;
  bool stopped_by_time = false;
};

// Trials the strategy plans for `n` candidates when no budget is given.
int PlannedTrials(const SearchOptions& options, size_t n);

// Invalid: an empty space, budget < 0, guided without a guide, warmup < 0,
// iters < 1. A trial budget that allows no full measurement is Invalid
// after the fact ("the trial budget ended the search before any candidate
// was fully measured").
Result<SearchOutcome> Search(const std::vector<OverlapConfig>& space, TrialRunner& runner,
                             const SearchOptions& options);

}  // namespace braid
