// What the processes of one run exchange, as bytes: each rank's events and
// verification to rank 0, and rank 0's iteration times and verdict back.
// Decoding checks every length: a damaged blob is an error, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "braid/backend.h"
#include "braid/launcher.h"

namespace braid::wire {

struct RankReport {
  std::vector<Event> events;
  VerifyResult verify;  // this rank's outputs only
  std::string host;
};

Blob EncodeRankReport(const RankReport& r);
Result<RankReport> DecodeRankReport(const Blob& blob);

// Rank 0's summary that every rank returns from Run.
struct RunSummary {
  std::vector<int64_t> iteration_ns;
  VerifyResult verify;
};

Blob EncodeRunSummary(const RunSummary& s);
Result<RunSummary> DecodeRunSummary(const Blob& blob);

}  // namespace braid::wire
