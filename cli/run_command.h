// `braid run`: one workload × topology × config on one backend.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "dp_flags.h"
#include "front_end.h"
#include "workload_flags.h"

namespace braid::cli {

// The backend's flags are BackendArgs' (front_end.h), shared with tune.
struct RunArgs : BackendArgs {
  WorkloadArgs workload;
  std::string algo;
  int chunks = 1;
  std::string splits;
  int streams = 1;
  int comm_sms = 0;
  std::string comm_engine = "sm";
  std::string comm_priority = "high";
  std::string comm_dtype = "auto";
  bool sm_margin = false;
  int wgrad_comm_sms = 0;
  std::string ub_cfgs;  // a TE ub_cfgs YAML: each GEMM of the layer as it says
  std::optional<double> fp8_scale_a, fp8_scale_b;
  std::string topology = "h100-sxm";
  int iters = 10;
  int warmup = 2;
  bool verify = false;
  bool json = false;
  std::string db = "braid.db";
  bool no_db = false;
  const CLI::App* app = nullptr;  // which flags were given; the arguments' hash
  unsigned long long seed = 42;
  DpArgs dp;  // --dp and the data-parallel flags (dp_flags.h)
};

void AddRunOptions(CLI::App* sub, RunArgs* args);

// In one process (ranks as threads), or under mpirun with one rank per
// process: rank 0 prints and writes the store, the others print only errors.
int ExecuteRun(const RunArgs& args);

}  // namespace braid::cli
