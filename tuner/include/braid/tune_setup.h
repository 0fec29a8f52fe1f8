// A tuning session as a front end asks for it (TuneSetup, in the tuner's
// fields) and everything checked and built before anything is measured
// (PrepareTune): what `braid tune` and its MPI leader call, so that the
// command only maps its flags to fields and prints.
//
//   TuneSetup -> CheckTuneSetup (the fields alone) -> PrepareTune (files,
//   targets, baseline, store and preset file checked) -> RunTuning (tune.h)
//
// Messages name the fields in backticks ("`budget` must be at least 1
// trial"); a front end words them its own way. Never throws.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "braid/layer_workload.h"
#include "braid/presets.h"
#include "braid/sim_backend.h"
#include "braid/status.h"
#include "braid/train_step.h"
#include "braid/tune.h"
#include "braid/workload.h"

namespace braid {

struct TuneSetup {
  std::string backend = "sim";         // sim | cpu | cuda
  std::optional<Workload> op;          // one op to tune, or
  std::optional<LayerWorkload> layer;  // every TP GEMM of a block (exactly one of the two)
  std::string topology = "h100-sxm";   // built-in name or .toml file
  std::string strategy;                // empty: exhaustive on sim, guided elsewhere
  std::optional<int> budget;           // most trials per op; unset: the strategy's plan
  double time_budget_s = 0;            // seconds for the whole session; 0: none
  std::optional<int> iters;            // unset: sim 1, else 20
  std::optional<int> warmup;           // unset: sim 0, else 2
  std::string db = "braid.db";         // the store that records every trial
  bool resume = false;
  long long session = 0;  // with resume: the session to continue
  std::string out;        // the preset file the winners are merged into
  double link_gbps = 0;   // cpu: transfers paced per rank pair; 0: not paced
  double link_latency_us = 0;
  std::optional<double> timeout_s;  // the backend's watchdog, when the caller set one
  bool loopback = false;            // every rank on one GPU (cuda)
  unsigned long long seed = 42;
  std::string comm_dtype = "auto";  // what every transfer moves (auto: the GEMM's own)
  std::string runtime = "braid";    // braid | te: what will run the winners
  std::string baseline;             // a ub_cfgs YAML measured beside TE's default; needs `layer`
  std::optional<DpSetup> dp;        // a training step's DP side, tuned once the block is
  int dp_layers = 0;                // the step's blocks (0: the model's)
};

// Everything PrepareTune built: the session's request, the preset file the
// winners merge into, and the step whose DP side follows the block.
struct PreparedTune {
  std::shared_ptr<SimHardware> hw;  // the guide reads it
  TuneRequest request;
  PresetFile existing;
  std::optional<TrainStepRequest> step;
};

// The checks of the fields alone, in the order PrepareTune makes them:
// counts, time and link figures, the watchdog, session and resume, the
// files' names, the strategy's name. Touches no file.
[[nodiscard]] Status CheckTuneSetup(const TuneSetup& setup);

// Every check before measuring (CheckTuneSetup first, CheckTuneRequest
// last): the targets, the DP step, comm dtype and runtime, the topology and
// its GPU, the baseline file, the preset file (one, or absent in a writable
// folder) and the store. Writes nothing.
[[nodiscard]] Result<PreparedTune> PrepareTune(const TuneSetup& setup);

}  // namespace braid
