#include "store_trial_runner.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "braid/lower_bound.h"
#include "braid/metric_rows.h"
#include "braid/notes_keys.h"
#include "braid/planner.h"
#include "braid/run_pipeline.h"
#include "braid/stored_text.h"

namespace braid::tuning {

StoreTrialRunner::StoreTrialRunner(Store& store, int64_t session, Backend& backend, std::string topology,
                                   RunOptions base, std::map<std::string, RecordedTrial>* recorded, TuneClock clock)
    : store_(store),
      session_(session),
      backend_(backend),
      topology_(std::move(topology)),
      base_(base),
      recorded_(recorded),
      clock_(std::move(clock)) {}

void StoreTrialRunner::SetTarget(const TuneTarget& target) {
  target_ = target;
  lower_bound_.reset();
}

Result<LowerBound> StoreTrialRunner::TargetLowerBound(const RunOptions& options) {
  if (lower_bound_) return *lower_bound_;
  BRAID_ASSIGN_OR_RETURN(auto serial, SerialPlanOfTarget(target_));
  BRAID_ASSIGN_OR_RETURN(auto lb, MeasureLowerBound(backend_, serial, options));
  lower_bound_ = lb;
  return lb;
}

namespace {

// Per timed iteration, the worst present rank's makespan: the samples whose
// median is the stored run's makespan p50.
std::vector<double> MakespanSamples(const RunMetrics& m) {
  std::vector<double> samples;
  for (const std::vector<MetricValues>& ranks : m.values) {
    double worst = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (r < m.present.size() && !m.present[r]) continue;
      worst = std::max(worst, ranks[r][Metric::kMakespan]);
    }
    samples.push_back(worst);
  }
  return samples;
}

}  // namespace

std::string StoreTrialRunner::KeyOf(const OverlapConfig& config, std::string_view stage) const {
  return EncodeTrialKey({target_.name, config.Describe(), std::string(stage)});
}

int64_t StoreTrialRunner::RunOf(const OverlapConfig& config, std::string_view stage) const {
  auto it = recorded_->find(KeyOf(config, stage));
  return it == recorded_->end() ? -1 : it->second.run;
}

Result<Measurement> StoreTrialRunner::Measure(size_t, const OverlapConfig& config, int warmup, int iters,
                                              std::string_view stage) {
  const std::string key = KeyOf(config, stage);
  if (auto it = recorded_->find(key); it != recorded_->end()) {
    if (!measured_keys_.count(key)) replayed_keys_.insert(key);  // recorded before this command
    return it->second.measurement;
  }
  BRAID_ASSIGN_OR_RETURN(auto plan, PlanOfTarget(target_, config));
  // The run pipeline's steps from the plan on (braid/run_pipeline.h); the
  // tuner checked the workload and topology once for the whole session.
  PreparedRun run;
  run.plan = std::move(plan);
  run.layer = target_.train_ops;  // the layer note names each op's pass, method and config
  run.topology.name = topology_;
  run.topology_recorded = !topology_.empty();
  run.options = base_;
  run.options.warmup = warmup;
  run.options.iters = iters;
  run.options.trace = true;  // the figure is the events' makespan, as the stored run reports it
  BRAID_ASSIGN_OR_RETURN(auto lb, TargetLowerBound(run.options));
  BRAID_ASSIGN_OR_RETURN(auto recorded, ExecuteRun(run, backend_, lb));
  RunRecord& rec = recorded.record;
  std::vector<double> samples = MakespanSamples(rec.figures.metrics);
  if (samples.empty()) return Status::Internal("the backend returned no events for " + config.Describe());
  Measurement m = Summarize(std::move(samples), int64_t(warmup) + iters);

  rec.notes[note::kTuner] = TunerNoteJson({session_, key, target_.layer});
  TrialInfo trial;
  trial.config_json = EncodeTrialConfig({config, target_.name, std::string(stage), warmup});
  trial.time_ns = std::llround(m.median_ns);
  trial.key = key;
  trial.samples_json = EncodeSamples(m.samples_ns);
  BRAID_ASSIGN_OR_RETURN(auto ids, store_.AddTrialWithRun(session_, trial, MetaOf(rec), LanesOf(run.plan),
                                                          recorded.output.events, RowsOf(rec)));
  (*recorded_)[key] = {m, ids.run};
  measured_keys_.insert(key);
  return m;
}

int StoreTrialRunner::TrialsOfTarget() const {
  const std::string prefix = TrialKeyPrefix(target_.name);
  int n = 0;
  for (auto it = recorded_->lower_bound(prefix); it != recorded_->end() && it->first.starts_with(prefix); ++it) ++n;
  return n;
}

bool StoreTrialRunner::OutOfTime() const { return deadline_ && clock_() >= *deadline_; }

Result<std::map<std::string, RecordedTrial>> RecordedTrials(const Store& store, int64_t session) {
  BRAID_ASSIGN_OR_RETURN(auto trials, store.ListTrials(session));
  std::map<std::string, RecordedTrial> out;
  for (const StoredTrial& t : trials) {
    if (t.trial.key.empty() || t.trial.status != "ok") continue;
    const std::string where =
        "trial " + std::to_string(t.id) + " of session " + std::to_string(session) + " in " + store.path();
    BRAID_ASSIGN_OR_RETURN(auto ns, DecodeSamples(t.trial.samples_json, where));
    // A trial cost its warm-up (kept with its config) and its samples.
    BRAID_ASSIGN_OR_RETURN(auto config, DecodeTrialConfig(t.trial.config_json, where));
    if (!config.warmup) return DamagedStore(where, "a config without a warm-up count");
    const int64_t iterations = *config.warmup + int64_t(ns.size());
    out[t.trial.key] = {Summarize(std::move(ns), iterations), t.trial.run.value_or(-1)};
  }
  return out;
}

}  // namespace braid::tuning
