// The TrialRunner of a tuning session (braid/tune.h): every trial is a run
// in the store, tied to its session, written with the trial in one
// transaction. On resume the session's recorded trials are replayed instead
// of measured: a strategy that asks again for a (target, config, stage) it
// measured before a kill gets the recorded samples, so no trial is lost and
// none is measured twice (the store refuses a second trial with the same key).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "braid/backend.h"
#include "braid/run_figures.h"
#include "braid/search.h"
#include "braid/store.h"
#include "braid/tune.h"
#include "braid/workload.h"

namespace braid::tuning {

struct RecordedTrial {
  Measurement measurement;
  int64_t run = -1;
};

class StoreTrialRunner : public TrialRunner {
 public:
  // `recorded`: the session's trials so far, by key (RecordedTrials).
  StoreTrialRunner(Store& store, int64_t session, Backend& backend, std::string topology, RunOptions base,
                   std::map<std::string, RecordedTrial>* recorded, TuneClock clock);

  // The op being tuned: trial keys start with its name ("fc1", "gemm_rs").
  void SetTarget(const TuneTarget& target);
  void SetDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) { deadline_ = deadline; }

  // The figure of a trial: per timed iteration, the worst rank's makespan.
  Result<Measurement> Measure(size_t candidate, const OverlapConfig& config, int warmup, int iters,
                              std::string_view stage) override;
  bool OutOfTime() const override;

  // The run behind a key measured or replayed in this session (-1 if none).
  int64_t RunOf(const OverlapConfig& config, std::string_view stage) const;
  std::string KeyOf(const OverlapConfig& config, std::string_view stage) const;

  // Distinct trials of the current target recorded in the session (a
  // baseline the search already measured is one trial, not two).
  int TrialsOfTarget() const;

  int measured() const { return int(measured_keys_.size()); }
  int replayed() const { return int(replayed_keys_.size()); }  // earlier calls' trials asked again

 private:
  // The target's lower bound, measured once (serial plan's compute alone and
  // comm alone), so that every trial run carries its efficiency.
  Result<LowerBound> TargetLowerBound(const RunOptions& options);

  Store& store_;
  int64_t session_;
  Backend& backend_;
  std::string topology_;
  RunOptions base_;
  std::map<std::string, RecordedTrial>* recorded_;
  TuneClock clock_;
  TuneTarget target_;
  std::optional<LowerBound> lower_bound_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::set<std::string> measured_keys_;  // measured by this runner
  std::set<std::string> replayed_keys_;  // recorded by an earlier call, asked again
};

// The session's trials by key, with their samples. Invalid when a trial's
// samples do not parse (a damaged store).
Result<std::map<std::string, RecordedTrial>> RecordedTrials(const Store& store, int64_t session);

}  // namespace braid::tuning
