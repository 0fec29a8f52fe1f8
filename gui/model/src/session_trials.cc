#include "braid/view/session_trials.h"

#include <algorithm>
#include <map>

#include "braid/measurement.h"
#include "braid/stored_text.h"

namespace braid::view {

namespace {

// What the viewer shows of a trial's stored text, decoded by the store's
// codec (braid/stored_text.h). A damaged trial is still listed, with the
// codec's message in its config column, so that the rest of the session
// stays readable.
void FillConfig(TrialRow& row, const StoredTrial& t) {
  Result<TrialConfig> c = DecodeTrialConfig(t.trial.config_json, "trial " + std::to_string(t.id));
  if (!c.ok()) {
    row.config = "(" + c.status().message() + ")";
    return;
  }
  row.algorithm = std::string(AlgorithmName(c->config.algorithm));
  row.chunks = c->config.chunks;
  row.config = c->config.Describe();
}

void FillTime(TrialRow& row, const StoredTrial& t) {
  Result<std::vector<double>> samples = DecodeSamples(t.trial.samples_json, "trial " + std::to_string(t.id));
  if (samples.ok()) {
    const Measurement m = Summarize(std::move(*samples), 0);
    row.median_ns = m.median_ns;
    row.ci_low_ns = m.ci_low_ns;
    row.ci_high_ns = m.ci_high_ns;
  } else if (t.trial.time_ns) {
    row.median_ns = row.ci_low_ns = row.ci_high_ns = double(*t.trial.time_ns);
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
    if (Result<TrialKey> key = DecodeTrialKey(t.trial.key); key.ok()) row.op = key->target;
    FillConfig(row, t);
    FillTime(row, t);
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
  BRAID_ASSIGN_OR_RETURN(auto s, store.GetSession(session));
  BRAID_ASSIGN_OR_RETURN(auto trials, store.ListTrials(session));
  return TrialRowsOf(trials);
}

}  // namespace braid::view
