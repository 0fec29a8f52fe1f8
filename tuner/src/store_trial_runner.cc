#include "store_trial_runner.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "braid/lower_bound.h"
#include "braid/metric_rows.h"
#include "braid/planner.h"
#include "braid/run_record.h"

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
  Result<Plan> serial = BuildPlan(target_.w, OverlapConfig{});
  if (!serial.ok()) return serial.status();
  Result<LowerBound> lb = MeasureLowerBound(backend_, *serial, options);
  if (!lb.ok()) return lb.status();
  lower_bound_ = *lb;
  return *lb;
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
  return target_.name + "|" + config.Describe() + "|" + std::string(stage);
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
  Result<Plan> plan = BuildPlan(target_.w, config);
  if (!plan.ok()) return plan.status();
  RunOptions opt = base_;
  opt.warmup = warmup;
  opt.iters = iters;
  opt.trace = true;  // the figure is the events' makespan, as the stored run reports it
  Result<LowerBound> lb = TargetLowerBound(opt);
  if (!lb.ok()) return lb.status();
  Result<RunOutput> out = backend_.Run(*plan, opt);
  if (!out.ok()) return out.status();
  RunRecord rec = RecordOfRun(*plan, topology_, backend_.name(), opt, *out, *lb);
  std::vector<double> samples = MakespanSamples(rec.figures.metrics);
  if (samples.empty()) return Status::Internal("the backend returned no events for " + config.Describe());
  Measurement m = Summarize(std::move(samples), int64_t(warmup) + iters);

  rec.notes["tuner"] = {{"session", session_}, {"trial", key}, {"layer", target_.layer}};
  TrialInfo trial;
  nlohmann::json config_json = ConfigJson(config);
  config_json["target"] = target_.name;
  config_json["stage"] = std::string(stage);
  config_json["warmup"] = warmup;
  trial.config_json = config_json.dump();
  trial.time_ns = int64_t(m.median_ns + 0.5);
  trial.key = key;
  trial.samples_json = nlohmann::json(m.samples_ns).dump();
  Result<Store::TrialIds> ids =
      store_.AddTrialWithRun(session_, trial, MetaOf(rec), LanesOf(*plan), out->events, RowsOf(rec));
  if (!ids.ok()) return ids.status();
  (*recorded_)[key] = {m, ids->run};
  measured_keys_.insert(key);
  return m;
}

int StoreTrialRunner::TrialsOfTarget() const {
  const std::string prefix = target_.name + "|";
  int n = 0;
  for (auto it = recorded_->lower_bound(prefix); it != recorded_->end() && it->first.starts_with(prefix); ++it) ++n;
  return n;
}

bool StoreTrialRunner::OutOfTime() const { return deadline_ && clock_() >= *deadline_; }

Result<std::map<std::string, RecordedTrial>> RecordedTrials(const Store& store, int64_t session) {
  Result<std::vector<StoredTrial>> trials = store.ListTrials(session);
  if (!trials.ok()) return trials.status();
  std::map<std::string, RecordedTrial> out;
  for (const StoredTrial& t : *trials) {
    if (t.trial.key.empty() || t.trial.status != "ok") continue;
    auto damaged = [&](const char* what) {
      return Status::Invalid("damaged store: trial " + std::to_string(t.id) + " of session " + std::to_string(session) +
                             " in " + store.path() + " has " + what);
    };
    nlohmann::json samples = nlohmann::json::parse(t.trial.samples_json, nullptr, false);
    if (!samples.is_array() || samples.empty()) return damaged("no usable samples");
    std::vector<double> ns;
    for (const auto& v : samples) {
      if (!v.is_number()) return damaged("a sample that is not a number");
      ns.push_back(v.get<double>());
    }
    // A trial cost its warm-up (kept with its config) and its samples.
    const nlohmann::json config = nlohmann::json::parse(t.trial.config_json, nullptr, false);
    if (Result<OverlapConfig> c = ConfigFromJson(config); !c.ok()) {
      return damaged(("a config that is not Braid's: " + c.status().message()).c_str());
    }
    if (!config.contains("warmup") || !config["warmup"].is_number_integer() || config["warmup"].get<int64_t>() < 0) {
      return damaged("a config without a warm-up count");
    }
    const int64_t warmup = config["warmup"].get<int64_t>();
    out[t.trial.key] = {Summarize(std::move(ns), warmup + int64_t(samples.size())), t.trial.run.value_or(-1)};
  }
  return out;
}

}  // namespace braid::tuning
