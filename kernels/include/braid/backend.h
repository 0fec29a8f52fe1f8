// A backend runs a Plan for warm-up and timed iterations and returns one
// Event per executed step of the timed iterations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/event.h"
#include "braid/plan.h"
#include "braid/status.h"

namespace braid {

struct RunOptions {
  int warmup = 1;
  int iters = 5;
  bool verify = false;  // compare each rank's output with a plain reference
  bool trace = true;    // record events (off only to measure tracing overhead)
  uint64_t seed = 42;   // input data
  // cpu link emulation: pace every transfer on a directed rank pair as
  // latency + bytes / bandwidth while still moving the bytes. 0 = no pacing.
  double link_gbps = 0;        // Gbit/s per direction per rank pair
  double link_latency_us = 0;  // per message
};

struct VerifyResult {
  bool ran = false;
  bool ok = false;
  // max over ranks of max|out − ref| / max|ref| (normwise relative error)
  double max_rel_error = 0;
  int worst_rank = -1;
};

struct RunOutput {
  std::vector<Event> events;          // timed iterations only, iteration 0..iters−1
  std::vector<int64_t> iteration_ns;  // wall time of each timed iteration
  VerifyResult verify;
  std::string compute_dtype;          // what the arithmetic really used ("fp32")
  std::vector<std::string> notes;     // e.g. "bf16 requested, computed in fp32"
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual Result<RunOutput> Run(const Plan& plan, const RunOptions& options) = 0;
};

}  // namespace braid
