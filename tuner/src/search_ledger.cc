#include "search_ledger.h"

#include <algorithm>
#include <string>

namespace braid::search {

Ledger::Ledger(const std::vector<OverlapConfig>& space, TrialRunner& runner, const SearchOptions& options,
               int planned_trials)
    : space_(space), runner_(runner), options_(options), planned_(planned_trials) {}

Result<std::optional<Measurement>> Ledger::Measure(size_t c, int warmup, int iters, std::string_view stage, bool full) {
  if (options_.budget > 0 && int(outcome_.trials.size()) >= options_.budget) {
    outcome_.stopped_by_budget = true;
    return std::optional<Measurement>();
  }
  if (runner_.OutOfTime()) {
    outcome_.stopped_by_time = true;
    return std::optional<Measurement>();
  }
  BRAID_ASSIGN_OR_RETURN(auto m, runner_.Measure(c, space_[c], warmup, iters, stage));
  outcome_.iterations += m.iterations;
  outcome_.trials.push_back({c, std::string(stage), m});
  if (full) full_[c] = m;
  Report();
  return std::optional<Measurement>(m);
}

void Ledger::Report() {
  if (!options_.on_trial) return;
  SearchProgress p;
  p.trials_done = int(outcome_.trials.size());
  p.trials_planned = std::max(planned_, p.trials_done);
  for (const auto& [c, m] : full_) {
    if (p.best_ns == 0 || m.median_ns < p.best_ns) {
      p.best = c;
      p.best_ns = m.median_ns;
    }
  }
  options_.on_trial(p);
}

Result<std::optional<Measurement>> Ledger::MeasureDespiteTheClock(size_t c) {
  BRAID_ASSIGN_OR_RETURN(auto m, runner_.Measure(c, space_[c], options_.warmup, options_.iters, "full"));
  outcome_.iterations += m.iterations;
  outcome_.trials.push_back({c, "full", m});
  full_[c] = m;
  Report();
  return std::optional<Measurement>(m);
}

Result<SearchOutcome> Ledger::Conclude() {
  if (full_.empty() && outcome_.stopped_by_time) {
    // A time budget never leaves an op without a winner, however slow the
    // machine: the best candidate seen in a partial rung (or the first of the
    // space) gets its one full measurement.
    size_t pick = 0;
    double pick_ns = 0;
    for (const TrialRecord& t : outcome_.trials) {
      if (pick_ns == 0 || t.measurement.median_ns < pick_ns) pick = t.candidate, pick_ns = t.measurement.median_ns;
    }
    BRAID_ASSIGN_OR_RETURN(auto m, MeasureDespiteTheClock(pick));
  }
  if (full_.empty()) {
    return Status::Invalid(std::string(outcome_.stopped_by_time ? "the time budget" : "the trial budget") +
                           " ended the search before any candidate was fully measured");
  }
  auto best = std::min_element(full_.begin(), full_.end(),
                               [](const auto& a, const auto& b) { return a.second.median_ns < b.second.median_ns; });
  const Measurement& lead = best->second;
  // Contenders: close in median, or not clearly slower.
  std::vector<std::pair<double, size_t>> close;
  for (const auto& [c, m] : full_) {
    const bool near = m.median_ns <= lead.median_ns * (1 + options_.recheck_within);
    if (near || !lead.ClearlyFasterThan(m)) close.emplace_back(m.median_ns, c);
  }
  std::sort(close.begin(), close.end());
  if (close.size() > size_t(std::max(1, options_.recheck_max))) close.resize(size_t(options_.recheck_max));

  std::map<size_t, Measurement> pooled;
  for (const auto& [median, c] : close) pooled[c] = full_.at(c);
  if (close.size() > 1) {
    // Half a full measurement each, so rechecking costs less than a rung.
    const int iters = std::max(1, options_.iters / 2);
    for (const auto& [median, c] : close) {
      BRAID_ASSIGN_OR_RETURN(auto again, Measure(c, std::min(options_.warmup, 1), iters, "recheck", false));
      if (!again.has_value()) break;  // out of budget: decide on what we have
      pooled[c] = Pool(pooled[c], *again);
      outcome_.rechecked.push_back(c);
    }
  }
  auto win = std::min_element(pooled.begin(), pooled.end(),
                              [](const auto& a, const auto& b) { return a.second.median_ns < b.second.median_ns; });
  outcome_.best = win->first;
  outcome_.best_measurement = win->second;
  return outcome_;
}

}  // namespace braid::search
