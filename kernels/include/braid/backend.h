// A backend runs a Plan for warm-up and timed iterations and returns one
// Event per executed step of the timed iterations.
//
// Threading contract: a Backend object is not thread-safe. One caller at a
// time may call Run; calls may come from any thread, one after another (the
// tuner runs thousands of plans on one object). A backend may start threads
// of its own inside Run and joins them all before Run returns.
//
// Status codes Run returns, and what a caller does about them:
//   kInvalidArgument  the plan or options cannot run on this backend (a knob
//                     it does not support, sizes over its limits); nothing
//                     ran. Change the plan or options, or the backend.
//   kUnavailable      the hardware or a library the backend needs is absent
//                     (no GPU). Run it where they are, or on another backend.
//   kNotFound         a data file the backend needs is missing.
//   kInternal         a failure while running (a transfer that timed out, a
//                     library error, out of memory), not a fault of the
//                     plan as far as the backend can tell.
// Run never throws: exceptions from libraries stop inside the backend.
//
// Options that only one backend understands (cpu link emulation, sim model
// choices, later cuda devices) are given to that backend's constructor, not
// carried here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/backend_kind.h"
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
  // FP8 runs: fixed per-tensor scales of every GEMM's A and B
  // (TransformerEngine's delayed scaling, where the scale comes from earlier
  // iterations' amax); values beyond the format's max / scale saturate.
  // Unset: each tensor's own amax (current scaling, Fp8ScaleForAmax).
  std::optional<double> fp8_scale_a, fp8_scale_b;
  // Streaming: a backend that can hand each timed iteration's events over as
  // the iteration is done (sim) calls this once per iteration, in order,
  // with that iteration's events (the callee may take them), and leaves
  // RunOutput::events empty, so that a run of millions of events is never
  // held whole. An error it returns ends the run with that error. Backends
  // that cannot stream ignore it and return the events as usual.
  std::function<Status(std::vector<Event>& iteration_events)> on_iteration;
  // Asked before each timed iteration but the first by a backend that runs
  // them one by one on the calling thread (sim): an error ends the run with
  // that error, so that a caller can be interrupted mid-run (Python's
  // Ctrl-C) rather than after it. Unset: never asked.
  std::function<Status()> between_iterations;
};

struct VerifyResult {
  bool ran = false;
  bool ok = false;
  // max over ranks of max|out − ref| / max|ref| (normwise relative error)
  double max_rel_error = 0;
  int worst_rank = -1;
};

// One numeric setting a backend applied, recorded with the run so that it can
// be reproduced ("link_gbps" = 100 for cpu link emulation).
using BackendSetting = std::pair<std::string, double>;

struct RunOutput {
  std::vector<Event> events;          // timed iterations only, iteration 0..iters−1
  std::vector<int64_t> iteration_ns;  // wall time of each timed iteration
  VerifyResult verify;
  std::string compute_dtype;             // what the arithmetic really used ("fp32")
  std::vector<std::string> notes;        // e.g. "bf16 requested, computed in fp32"
  std::vector<BackendSetting> settings;  // backend-specific settings in force
};

class Backend {
 public:
  virtual ~Backend() = default;
  // What a run record names it by: a real backend's BackendKindName.
  virtual std::string_view name() const = 0;
  virtual Result<RunOutput> Run(const Plan& plan, const RunOptions& options) = 0;
  // Whether RunOutput::iteration_ns is each iteration's makespan as its
  // events give it (the sim's), so that a figure held against the makespan
  // (the lower bound) may be taken from it without recording events; where
  // it is the host's time for the iteration (cuda, cpu), it is not.
  virtual bool IterationTimesAreMakespans() const { return false; }
};

}  // namespace braid
