// `braid tune`: searches the overlap configs of one op, or of every TP GEMM
// of a model's block, on any backend; records every trial in the store
// (resumable after a kill with --resume) and merges the winners into a
// preset file.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "dp_flags.h"
#include "front_end.h"
#include "workload_flags.h"

namespace braid::cli {

// The backend's flags are BackendArgs' (front_end.h), shared with run.
struct TuneArgs : BackendArgs {
  WorkloadArgs workload;
  std::string topology = "h100-sxm";
  std::string strategy;  // empty: exhaustive on sim, guided elsewhere
  int budget = 0;
  CLI::Option* budget_option = nullptr;
  double time_budget_s = 0;
  int iters = 0;   // unset: backend default (sim 1, else 20)
  int warmup = 0;  // unset: backend default (sim 0, else 2)
  CLI::Option* iters_option = nullptr;
  CLI::Option* warmup_option = nullptr;
  std::string db = "braid.db";
  bool resume = false;
  long long session = 0;
  std::string out;
  bool json = false;
  bool no_progress = false;
  unsigned long long seed = 42;
  std::string comm_dtype = "auto";
  std::string runtime = "braid";  // braid | te: what will run the winners
  std::string baseline;           // a ub_cfgs YAML compared beside TE's default
  DpArgs dp;                      // --dp: the step's DP side tuned too (dp_flags.h)
  const CLI::App* app = nullptr;  // the arguments' hash
};

void AddTuneOptions(CLI::App* sub, TuneArgs* args);
int ExecuteTune(const TuneArgs& args);

}  // namespace braid::cli
