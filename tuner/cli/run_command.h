// `braid run`: one workload × topology × config on one backend.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "braid/layer_workload.h"
#include "braid/status.h"

namespace braid::cli {

struct RunArgs {
  std::string backend = "sim";
  std::string op, m, n, k;            // one op, or
  std::string model, seq, batch;      // a layer workload (exactly one of the two forms)
  std::string phase = "prefill";
  std::string sequence_parallel;      // on | off; empty: on for prefill, off for decode
  int tp = 0;
  std::string dtype = "bf16";
  std::string algo;
  int chunks = 1;
  std::string splits;
  int streams = 1;
  int comm_sms = 0;
  std::string comm_engine = "sm";
  std::string comm_priority = "high";
  std::string topology = "h100-sxm";
  int iters = 10;
  int warmup = 2;
  bool verify = false;
  bool json = false;
  std::string db = "braid.db";
  bool no_db = false;
  double link_gbps = 0;
  double link_latency_us = 0;
  unsigned long long seed = 42;
};

void AddRunOptions(CLI::App* sub, RunArgs* args);

// Exactly one workload form: --op/--m/--n/--k or --model/--seq/--batch.
Status CheckWorkloadForm(const RunArgs& a);
// The layer of `--model NAME --seq L [--batch B] [--phase P] [--sequence-parallel on|off]`.
Result<LayerWorkload> LayerFromArgs(const RunArgs& a);
int ExecuteRun(const RunArgs& args);

}  // namespace braid::cli
