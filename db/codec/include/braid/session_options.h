// A tuning session's other options (tuning_sessions.options_json): what a
// resumed session must match. The tuner compares the stored text with the
// request's byte for byte, so the encoding is fixed: the same options give
// the same text, and a session stored before an option existed resumes
// because that option is written only when set.
//
//   {"budget", "iters", "link_gbps", "link_latency_us", "seed",
//    "time_budget_s", "warmup"} and where set "baseline", "comm_dtype",
//    "runtime"
//
// Never throws. Standard library, core and nlohmann-json only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

struct SessionOptions {
  int iters = 0;
  int warmup = 0;
  int budget = 0;            // trials per op; 0: the strategy's own plan
  double time_budget_s = 0;  // 0: none
  uint64_t seed = 0;
  double link_gbps = 0;  // the cpu backend's emulated link; 0: none
  double link_latency_us = 0;
  std::optional<DType> comm_dtype;  // written only when set
  std::string runtime;              // "te", or "" (Braid's own: not written)
  std::string baseline;             // the ub_cfgs file's path, or "" (not written)
  bool operator==(const SessionOptions&) const = default;
};

std::string EncodeSessionOptions(const SessionOptions& o);
// Invalid ("damaged store: <where> has ...") names the field of the wrong
// type; a field that is absent keeps its default ("{}" is a session whose
// options were not recorded).
[[nodiscard]] Result<SessionOptions> DecodeSessionOptions(std::string_view text, std::string_view where);

}  // namespace braid
