// The bookkeeping every strategy shares: counting trials against the
// budget and the clock, keeping each candidate's full measurement, and the
// final recheck of close contenders.
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "braid/search.h"

namespace braid::search {

class Ledger {
 public:
  Ledger(const std::vector<OverlapConfig>& space, TrialRunner& runner, const SearchOptions& options,
         int planned_trials);

  // Measures candidate c unless the budget or the time is spent (then
  // nullopt, and stopped() is true). A `full` measurement makes c eligible
  // to win.
  Result<std::optional<Measurement>> Measure(size_t c, int warmup, int iters, std::string_view stage, bool full);
  Result<std::optional<Measurement>> MeasureFull(size_t c) {
    return Measure(c, options_.warmup, options_.iters, "full", true);
  }

  bool stopped() const { return outcome_.stopped_by_budget || outcome_.stopped_by_time; }
  const std::map<size_t, Measurement>& full() const { return full_; }
  const SearchOptions& options() const { return options_; }
  size_t space_size() const { return space_.size(); }

  // Rechecks the contenders of the best full measurement and declares the
  // winner. Invalid when nothing was fully measured.
  Result<SearchOutcome> Conclude();

 private:
  void Report();
  Result<std::optional<Measurement>> MeasureDespiteTheClock(size_t c);

  const std::vector<OverlapConfig>& space_;
  TrialRunner& runner_;
  SearchOptions options_;
  int planned_;
  std::map<size_t, Measurement> full_;
  SearchOutcome outcome_;
};

}  // namespace braid::search
