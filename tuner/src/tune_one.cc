#include <cmath>
#include <string>

#include "braid/planner.h"
#include "braid/te_default.h"
#include "braid/tune.h"

namespace braid {

namespace {

std::string Ns(double ns) { return std::to_string(std::llround(ns)) + " ns"; }

// A backward pair's result also names the config its wgrad followed.
Result<TuneResult> WithWgrad(TuneResult r) {
  if (!r.train_ops) return r;
  BRAID_ASSIGN_OR_RETURN(auto configs, TrainOpConfigs(*r.train_ops, r.config));
  if (configs.size() != 2)
    return Status::Internal("a backward pair plans two ops, not " + std::to_string(configs.size()));
  r.wgrad_config = configs[1];
  return r;
}

}  // namespace

bool WithinEachOthersBand(double a_ns, double a_band, double b_ns, double b_band) {
  return std::abs(a_ns - b_ns) <= a_ns * a_band + b_ns * b_band;
}

Result<TuneResult> TuneOne(const TuneTarget& target, const std::vector<OverlapConfig>& space, TrialRunner& runner,
                           const SearchOptions& options, bool baselines, TuneRuntime runtime) {
  BRAID_ASSIGN_OR_RETURN(auto outcome, Search(space, runner, options));
  TuneResult r;
  r.op = target.name;
  r.layer = target.layer;
  r.workload = target.w;
  r.config = space[outcome.best];
  r.time_ns = outcome.best_measurement.median_ns;
  r.ci_low_ns = outcome.best_measurement.ci_low_ns;
  r.ci_high_ns = outcome.best_measurement.ci_high_ns;
  r.candidates = int(space.size());
  r.trials = int(outcome.trials.size());
  r.iterations = outcome.iterations;
  r.stopped_by = outcome.stopped_by_time ? "time" : outcome.stopped_by_budget ? "trial" : "";
  r.pass = target.pass;
  r.train_ops = target.train_ops;
  if (!baselines) return WithWgrad(std::move(r));

  // Baselines, measured like any candidate (a recording runner replays them
  // when the search measured them already).
  const TeDefault te = TeDefaultOfTarget(target);
  BRAID_ASSIGN_OR_RETURN(auto serial, runner.Measure(0, OverlapConfig{}, options.warmup, options.iters, "full"));
  BRAID_ASSIGN_OR_RETURN(auto te_m, runner.Measure(0, te.config, options.warmup, options.iters, "full"));
  r.serial_ns = serial.median_ns;
  r.te_default = te.config;
  r.te_note = te.note;
  r.te_default_ns = te_m.median_ns;
  r.trials += 2;
  r.iterations += serial.iterations + te_m.iterations;
  struct Candidate {
    const char* name;
    OverlapConfig config;
    Measurement m;
  };
  std::vector<Candidate> fallbacks;
  // TE runs no serial GEMM (no per-key off switch): a TE winner falls back
  // to TE's default or the user's baseline only.
  if (runtime == TuneRuntime::kBraid) fallbacks.push_back({"serial", OverlapConfig{}, serial});
  fallbacks.push_back({"TE's default", te.config, te_m});
  if (target.baseline) {
    BRAID_ASSIGN_OR_RETURN(auto base, runner.Measure(0, *target.baseline, options.warmup, options.iters, "full"));
    r.baseline = target.baseline;
    r.baseline_ns = base.median_ns;
    r.trials += 1;
    r.iterations += base.iterations;
    fallbacks.push_back({"the baseline", *target.baseline, base});
  }

  // Never hand out a config slower than a baseline we measured.
  const Candidate* best = nullptr;
  for (const Candidate& c : fallbacks) {
    if (best == nullptr || c.m.median_ns < best->m.median_ns) best = &c;
  }
  if (best != nullptr && best->m.median_ns < r.time_ns) {
    r.note = "the search's best (" + r.config.Describe() + ", " + Ns(r.time_ns) + ") was slower than " + best->name +
             " (" + Ns(best->m.median_ns) + "); the baseline is kept";
    r.config = best->config;
    r.time_ns = best->m.median_ns;
    r.ci_low_ns = best->m.ci_low_ns;
    r.ci_high_ns = best->m.ci_high_ns;
  }
  return WithWgrad(std::move(r));
}

}  // namespace braid
