#include "store_trial_runner.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "braid/backend_trial_runner.h"
#include "braid/metric_rows.h"
#include "braid/planner.h"
#include "run_record.h"

namespace braid::cli {

StoreTrialRunner::StoreTrialRunner(Store& store, int64_t session, Backend& backend, std::string topology,
                                   RunOptions base, std::map<std::string, RecordedTrial>* recorded)
    : store_(store),
      session_(session),
      backend_(backend),
      topology_(std::move(topology)),
      base_(base),
      recorded_(recorded) {}

void StoreTrialRunner::SetTarget(std::string name, Workload w, std::string layer) {
  target_ = std::move(name);
  w_ = w;
  layer_ = std::move(layer);
}

std::string StoreTrialRunner::KeyOf(const OverlapConfig& config, std::string_view stage) const {
  return target_ + "|" + config.Describe() + "|" + std::string(stage);
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
  Result<Plan> plan = BuildPlan(w_, config);
  if (!plan.ok()) return plan.status();
  RunOptions opt = base_;
  opt.warmup = warmup;
  opt.iters = iters;
  Result<RunOutput> out = backend_.Run(*plan, opt);
  if (!out.ok()) return out.status();
  if (out->iteration_ns.empty()) return Status::Internal("the backend returned no iteration times");
  Measurement m = MeasurementOfRun(*out, warmup, iters);

  RunRecord rec = RecordOfRun(*plan, topology_, backend_.name(), opt, *out);
  rec.notes["tuner"] = {{"session", session_}, {"trial", key}, {"layer", layer_}};
  TrialInfo trial;
  nlohmann::json config_json = ConfigJson(config);
  config_json["target"] = target_;
  config_json["stage"] = std::string(stage);
  config_json["warmup"] = warmup;
  trial.config_json = config_json.dump();
  trial.time_ns = int64_t(m.median_ns + 0.5);
  trial.key = key;
  trial.samples_json = nlohmann::json(m.samples_ns).dump();
  Result<Store::TrialIds> ids =
      store_.AddTrialWithRun(session_, trial, MetaOf(rec), LanesOf(*plan), out->events, MetricRowsOf(rec.metrics));
  if (!ids.ok()) return ids.status();
  (*recorded_)[key] = {m, ids->run};
  measured_keys_.insert(key);
  return m;
}

bool StoreTrialRunner::OutOfTime() const { return deadline_ && std::chrono::steady_clock::now() >= *deadline_; }

Result<std::map<std::string, RecordedTrial>> RecordedTrials(const Store& store, int64_t session) {
  Result<std::vector<StoredTrial>> trials = store.ListTrials(session);
  if (!trials.ok()) return trials.status();
  std::map<std::string, RecordedTrial> out;
  for (const StoredTrial& t : *trials) {
    if (t.trial.key.empty() || t.trial.status != "ok") continue;
    auto damaged = [&](const char* what) {
      return Status::Invalid("trial " + std::to_string(t.id) + " of session " + std::to_string(session) + " in " +
                             store.path() + " has " + what);
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
    int64_t warmup = 0;
    if (config.is_object() && config.contains("warmup") && config["warmup"].is_number_integer()) {
      warmup = config["warmup"].get<int64_t>();
    }
    out[t.trial.key] = {Summarize(std::move(ns), warmup + int64_t(samples.size())), t.trial.run.value_or(-1)};
  }
  return out;
}

}  // namespace braid::cli
