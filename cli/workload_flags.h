// The workload flags of the command line: one op (--op --m --n --k --tp
// --dtype), shared by `run`, `tune` and `presets lookup`, or a model's layer
// (--model --seq --batch --phase --sequence-parallel), shared by `run` and
// `tune`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "braid/layer_workload.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid::cli {

// Sizes take K/M/G suffixes; every error names its flag.
Result<Workload> WorkloadFromFlags(const std::string& op, const std::string& m, const std::string& n,
                                   const std::string& k, int tp, const std::string& dtype);

struct WorkloadArgs {
  std::string op, m, n, k;        // one op, or
  std::string model, seq, batch;  // a layer workload (exactly one of the two forms)
  std::string phase = "prefill";
  std::string sequence_parallel;  // on | off | ulysses; empty: on for prefill, off for decode
  int tp = 0;
  std::string dtype = "bf16";
};

void AddWorkloadOptions(CLI::App* sub, WorkloadArgs* a, const char* model_help);
// --comm-dtype (OverlapConfig::comm_dtype), shared by `run` and `tune`.
void AddCommDTypeOption(CLI::App* sub, std::string* comm_dtype);

// Exactly one workload form: --op/--m/--n/--k or --model/--seq/--batch.
Status CheckWorkloadForm(const WorkloadArgs& a);
// The layer of `--model NAME --seq L [--batch B] [--phase P] [--sequence-parallel on|off|ulysses]`.
Result<LayerWorkload> LayerFromArgs(const WorkloadArgs& a);

}  // namespace braid::cli
