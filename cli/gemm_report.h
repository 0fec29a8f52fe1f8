// `braid report --run N --by-gemm`: per GEMM of a run (braid/gemm_overlap.h)
// its time, its communication, overlapped and exposed, the overlap method the
// trace shows and a verdict, as a table of one rank and iteration, or JSON of
// every rank and iteration.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "braid/gemm_overlap.h"
#include "braid/status.h"
#include "braid/te_trace_check.h"
#include "gemm_prediction.h"

namespace braid::cli {

nlohmann::json GemmReportJson(int64_t run, const GemmOverlapReport& report);

// The rows of `rank` (default: the lowest with a GEMM) and `iteration`
// (default: its last with a GEMM: the steady state, past warm-up), then
// the verdicts counted over every rank and iteration; a line saying so when
// the run has no GEMM. Invalid when the rank or iteration asked for has no
// GEMM, naming the ones that do.
Result<std::string> GemmReportTable(int64_t run, const GemmOverlapReport& report, std::optional<int> rank,
                                    std::optional<int> iteration);

// `--ub-cfgs FILE`: each of TE's twelve keys as the file sets it, else TE's
// default method (read through the safe reader; Invalid names the file's
// problem); then per key, that method against what the trace shows.
Result<std::vector<UbKeyExpectation>> UbKeyExpectationsOf(const std::string& path);
// Invalid unless a trace of `ranks` ranks in TP groups of `tp` has a TP
// group for a ub_cfgs file (`path`) to overlap over (tp >= 2): the one
// check of import and report alike.
Status CheckUbCfgsHasTpGroup(const std::string& path, int tp, int ranks);
nlohmann::json TeChecksJson(const std::vector<TeKeyCheck>& checks);
std::string TeChecksTable(const std::string& file, const std::vector<TeKeyCheck>& checks);

// `--model ...`: per key, the trace's GEMMs with that key (median over every
// rank and iteration: GEMM time, exposed comm, span) beside the sim's
// figures of the key's op (compute, exposed comm, time).
nlohmann::json PredictionJson(const GemmOverlapReport& report, const GemmPrediction& prediction);
std::string PredictionTable(const GemmOverlapReport& report, const GemmPrediction& prediction);

}  // namespace braid::cli
