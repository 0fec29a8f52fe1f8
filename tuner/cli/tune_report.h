// What `braid tune` found, per op, and how it is shown: the table, the JSON
// of DESIGN.md's contract, and the preset entries written to --out.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/overlap_config.h"
#include "braid/presets.h"
#include "braid/workload.h"

namespace braid::cli {

struct TuneResult {
  std::string op;     // "fc1" (a model's op) or "gemm_rs" (one op)
  std::string layer;  // "llama3-70b/fc1"; empty for one op
  Workload workload;
  OverlapConfig config;
  double time_ns = 0;
  double ci_low_ns = 0, ci_high_ns = 0;
  double serial_ns = 0;
  OverlapConfig te_default;
  std::string te_note;  // why serial stands in for TE's default, if it does
  double te_default_ns = 0;
  double overlap_ratio = 0;
  double tail_ns = 0;
  int candidates = 0;
  int trials = 0;           // this op's trials (search and baselines)
  long long iterations = 0; // their warm-up + timed iterations
  std::string stopped_by;   // "" | "budget" | "time"
};

struct TuneSummary {
  long long session = 0;
  std::string workload;  // the session's workload key
  std::string topology, gpu, backend, strategy;
  int trials = 0;     // trials recorded in the session
  int measured = 0;   // of which measured by this command
  int replayed = 0;   // trials a resumed session found recorded
  std::string out;    // the preset file
  int presets_written = 0;
  std::vector<TuneResult> results;
};

nlohmann::json TuneJson(const TuneSummary& s);
std::string TuneTable(const TuneSummary& s);

// One preset per result, keyed by the topology's GPU and name.
PresetFile PresetsOf(const TuneSummary& s, const std::string& braid_version, const std::string& date);

// ISO 8601 UTC, to the second: "2026-11-21T22:00:00Z".
std::string NowIso8601();

}  // namespace braid::cli
