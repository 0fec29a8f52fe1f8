// The TrialRunner of `braid tune`: every trial is a run in the store, tied
// to its tuning session, written with the trial in one transaction. On
// --resume the session's recorded trials are replayed instead of measured:
// a strategy that asks again for a (target, config, stage) it measured
// before a kill gets the recorded samples, so no trial is lost and none is
// measured twice (the store refuses a second trial with the same key).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "braid/backend.h"
#include "braid/search.h"
#include "braid/store.h"
#include "braid/workload.h"

namespace braid::cli {

struct RecordedTrial {
  Measurement measurement;
  int64_t run = -1;
};

class StoreTrialRunner : public TrialRunner {
 public:
  // `recorded`: the session's trials so far, by key (RecordedTrials).
  StoreTrialRunner(Store& store, int64_t session, Backend& backend, std::string topology, RunOptions base,
                   std::map<std::string, RecordedTrial>* recorded);

  // The op being tuned: trial keys start with its name ("fc1", "gemm_rs").
  void SetTarget(std::string name, Workload w, std::string layer);
  void SetDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) { deadline_ = deadline; }

  Result<Measurement> Measure(size_t candidate, const OverlapConfig& config, int warmup, int iters,
                              std::string_view stage) override;
  bool OutOfTime() const override;

  // The run behind a key measured or replayed in this session (-1 if none).
  int64_t RunOf(const OverlapConfig& config, std::string_view stage) const;
  std::string KeyOf(const OverlapConfig& config, std::string_view stage) const;

  int measured() const { return int(measured_keys_.size()); }
  int replayed() const { return int(replayed_keys_.size()); }  // earlier commands' trials asked again

 private:
  Store& store_;
  int64_t session_;
  Backend& backend_;
  std::string topology_;
  RunOptions base_;
  std::map<std::string, RecordedTrial>* recorded_;
  std::string target_, layer_;
  Workload w_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::set<std::string> measured_keys_;  // measured by this runner
  std::set<std::string> replayed_keys_;  // recorded by an earlier command, asked again
};

// The session's trials by key, with their samples. Invalid when a trial's
// samples do not parse (a damaged store).
Result<std::map<std::string, RecordedTrial>> RecordedTrials(const Store& store, int64_t session);

}  // namespace braid::cli
