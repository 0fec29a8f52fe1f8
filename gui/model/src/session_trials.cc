#include "braid/view/session_trials.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "braid/measurement.h"

namespace braid::view {

namespace {

void FillConfig(TrialRow& row, const std::string& config_json) {
  const nlohmann::json c = nlohmann::json::parse(config_json.empty() ? "{}" : config_json, nullptr, false);
  if (!c.is_object()) {
    row.config = "(config does not parse)";
    return;
  }
  if (auto a = c.find("algorithm"); a != c.end() && a->is_string()) row.algorithm = a->get<std::string>();
  if (auto k = c.find("chunks"); k != c.end() && k->is_number_integer()) row.chunks = k->get<int>();
  row.config = row.algorithm;
  for (const auto& [key, value] : c.items()) {
    if (key == "algorithm") continue;
    row.config +=
        (row.config.empty() ? "" : " ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
}

void FillTime(TrialRow& row, const TrialInfo& t) {
  const nlohmann::json s = nlohmann::json::parse(t.samples_json.empty() ? "[]" : t.samples_json, nullptr, false);
  std::vector<double> samples;
  if (s.is_array()) {
    for (const auto& x : s) {
      if (x.is_number()) samples.push_back(x.get<double>());
    }
  }
  if (!samples.empty()) {
    const Measurement m = Summarize(std::move(samples), 0);
    row.median_ns = m.median_ns;
    row.ci_low_ns = m.ci_low_ns;
    row.ci_high_ns = m.ci_high_ns;
  } else if (t.time_ns) {
    row.median_ns = row.ci_low_ns = row.ci_high_ns = double(*t.time_ns);
  }
}

}  // namespace

std::vector<TrialRow> TrialRowsOf(const std::vector<StoredTrial>& trials) {
  std::vector<TrialRow> rows;
  std::map<std::string, double> serial;  // op -> serial median
  for (const StoredTrial& t : trials) {
    TrialRow& row = rows.emplace_back();
    row.id = t.id;
    row.run = t.trial.run;
    row.status = t.trial.status;
    const size_t bar = t.trial.key.find('|');
    row.op = bar == std::string::npos ? "" : t.trial.key.substr(0, bar);
    FillConfig(row, t.trial.config_json);
    FillTime(row, t.trial);
    if (row.algorithm == "serial" && row.median_ns && row.status == "ok") {
      auto [it, fresh] = serial.try_emplace(row.op, *row.median_ns);
      if (!fresh) it->second = std::min(it->second, *row.median_ns);
    }
  }
  for (TrialRow& row : rows) {
    const auto it = serial.find(row.op);
    if (it != serial.end() && row.median_ns && *row.median_ns > 0) row.speedup_vs_serial = it->second / *row.median_ns;
  }
  return rows;
}

Result<std::vector<TrialRow>> LoadTrialRows(const Store& store, int64_t session) {
  auto s = store.GetSession(session);
  if (!s.ok()) return s.status();
  auto trials = store.ListTrials(session);
  if (!trials.ok()) return trials.status();
  return TrialRowsOf(*trials);
}

}  // namespace braid::view
