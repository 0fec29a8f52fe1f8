// Braid's side of a traced block (`braid report --by-gemm --model M --seq
// L`): one rank's GEMM of each ub_cfgs key, by shape, to map the trace's
// GEMMs (braid/gemm_keys.h), and the sim's figures of each key's op under
// the config the user names: a ub_cfgs file (TE as it would run it), a
// preset file (Braid's tuned configs), or neither (serial: each GEMM, then
// its collective, which is what a trace without overlap ran).
#pragma once

#include <string>
#include <vector>

#include "braid/gemm_keys.h"
#include "braid/layer_workload.h"
#include "braid/op_figures.h"
#include "braid/status.h"
#include "workload_flags.h"

namespace braid::cli {

struct PredictionInputs {
  WorkloadArgs workload;  // --model --seq --batch --phase --dtype; tp: the trace's TP size
  std::string topology = "h100-sxm";
  std::string ub_cfgs;  // a TE ub_cfgs YAML, or
  std::string preset;   // a preset file, or neither
};

struct KeyPrediction {
  std::string key;     // "qkv_fprop"
  std::string op;      // the block's op, "qkv.fprop"
  std::string config;  // what the sim ran, OverlapConfig::Describe()
  OpFigures figures;   // the sim's (worst rank's p50)
};

struct GemmPrediction {
  std::string block;          // LayerWorkload::Describe()
  std::string configured_by;  // "ub_cfgs FILE" | "preset FILE" | "serial"
  std::string topology;
  std::vector<KeyShape> shapes;     // each key's GEMM on one rank
  std::vector<KeyPrediction> keys;  // in the block's op order
  std::vector<std::string> notes;   // nearest presets, options the sim does not follow
};

// One rank's GEMM (m, n, k) of each TP GEMM op of `lw` under its key: an
// all-gather GEMM or a local one holds N/P columns of the output, a
// reduce-scatter or all-reduce GEMM K/P of the contraction.
std::vector<KeyShape> KeyShapesOf(const LayerWorkload& lw);

// Invalid, naming the flag or the file's key, for a block the flags do not
// describe, a ub_cfgs file TE would refuse for this block at this TP size
// (ResolveTeUbCfgs), a preset file without an entry for one of its GEMMs,
// or a config the planner refuses.
Result<GemmPrediction> PredictBlock(const PredictionInputs& in);

}  // namespace braid::cli
