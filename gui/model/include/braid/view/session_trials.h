// The trials of a tuning session as the session view lists them: config,
// median time with its 95 % interval (the tuner's own Summarize), and the
// speedup over the serial trial of the same op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/status.h"
#include "braid/store.h"

namespace braid::view {

struct TrialRow {
  int64_t id = 0;
  std::optional<int64_t> run;
  std::string op;         // the part of the key before the first '|' ("fc2"), or ""
  std::string algorithm;  // from the config JSON, or ""
  std::string config;     // "ring chunks=4 streams=1 ..."
  std::string status;
  int chunks = 1;
  std::optional<double> median_ns, ci_low_ns, ci_high_ns;
  std::optional<double> speedup_vs_serial;  // serial median / this median
};

// Rows of one stored session's trials, id order.
std::vector<TrialRow> TrialRowsOf(const std::vector<StoredTrial>& trials);

Result<std::vector<TrialRow>> LoadTrialRows(const Store& store, int64_t session);

}  // namespace braid::view
