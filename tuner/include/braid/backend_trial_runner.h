// A TrialRunner that measures on a backend and keeps nothing: the tuner's
// tests and the tuner-quality benchmark. (`braid tune` records every trial
// in the store instead: cli/store_trial_runner.h.)
#pragma once

#include <chrono>
#include <optional>

#include "braid/backend.h"
#include "braid/search.h"
#include "braid/workload.h"

namespace braid {

// The figure of a run: its timed iterations' wall times.
Measurement MeasurementOfRun(const RunOutput& out, int warmup, int iters);

class BackendTrialRunner : public TrialRunner {
 public:
  // `base` supplies the options other than warmup / iters (seed, link pacing).
  BackendTrialRunner(Backend& backend, Workload w, RunOptions base = {});
  void SetDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }

  Result<Measurement> Measure(size_t candidate, const OverlapConfig& config, int warmup, int iters,
                              std::string_view stage) override;
  bool OutOfTime() const override;

 private:
  Backend& backend_;
  Workload w_;
  RunOptions base_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

}  // namespace braid
