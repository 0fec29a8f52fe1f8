// `braid presets export-te`: a preset file's configs for one model's
// transformer block, written as TransformerEngine `ub_cfgs` YAML (the file
// Megatron-LM's --tp-comm-overlap-cfg names; Megatron yaml.safe_load()s it
// and passes it to transformer_engine.pytorch.initialize_ub(ub_cfgs=...)).
//
// One key per TP GEMM of the block, `<layer>_<pass>` with out_proj written
// `proj`: a forward phase (prefill) has the four fprop keys qkv_fprop,
// proj_fprop, fc1_fprop, fc2_fprop; phase train adds the eight backward keys
// {qkv,proj,fc1,fc2}_{dgrad,wgrad}. Each key gets TE's options (method,
// num_splits, num_sm, cga_size, set_sm_margin, atomic_gemm, use_ce,
// aggregate; fp8_buf in FP8 exports; comm_priority / gemm_priority where the
// comm is not above the GEMM), booleans as 0/1 as TE's example YAMLs write
// them.
//
// Exact by default: every key's options run exactly the preset's config
// (braid/te_ub_cfgs.h TeOptionsOf), so that evaluating the file again (`braid
// run --ub-cfgs`) gives the time that was tuned. A preset TE cannot express
// (tuned with `--runtime braid`: direct all-gathers, sub-chunks, a second
// comm stream, ...) is refused in one line naming the key and what TE lacks.
// With `nearest`, such a key is written as TE's nearest setting instead,
// every approximation named in a comment above it (TeUbCfg::nearest); the
// caller then times what the file runs.
//
// TE pairs each backward GEMM with its dgrad (initialize_ub), so a train
// export writes only what TE accepts beside the dgrad it wrote:
//   - a column-parallel wgrad (qkv_wgrad, fc1_wgrad) is bulk beside a bulk
//     dgrad, and left out beside any other (TE refuses the key then and
//     runs that wgrad without overlap: the serial the tuner derived);
//   - a row-parallel wgrad (proj_wgrad, fc2_wgrad) is external beside its
//     dgrad's ring_exchange.
// A left-out key's comments stay in the YAML and end in "# <key>: (omitted)".
// Pure functions: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/presets.h"
#include "braid/status.h"
#include "braid/te_ub_cfgs.h"
#include "braid/workload.h"

namespace braid {

// One layer's TE userbuffer options, and what the nearest mapping could not
// express (one line each, no '#').
struct TeSettings : TeOptions {
  std::vector<std::string> comments;
};

// TE's nearest setting for one Braid config of an `op` GEMM at TP degree
// `tp` (export-te --nearest). `default_comm_sms` is what comm_sms = 0
// (backend default) resolves to.
TeSettings MapToTe(const OverlapConfig& config, Op op, int tp, int default_comm_sms);

// The TE ub_cfgs key of a layer op: "qkv" and "qkv.fprop" -> "qkv_fprop",
// "qkv.dgrad" -> "qkv_dgrad", "out_proj.wgrad" -> "proj_wgrad"; empty for an
// op with none (attention, attention.backward).
std::string_view TeLayerKey(std::string_view layer_op_name);

// This build's provenance from core's version API: "0.1.0 (git 1a2b3c4)".
std::string BraidProvenance();

struct TeExportInfo {
  std::string braid_version = BraidProvenance();
  std::string source;                                       // the preset file, as named on the command line
  int default_comm_sms = 16;                                // comm_sms = 0 resolves to this (nearest only)
  std::string default_comm_sms_origin = "Braid's default";  // "topology h100-sxm nccl_channels"
  bool nearest = false;  // write TE's nearest setting where a preset's config is not expressible
};

// The TP degrees of the table's entries for (gpu, topology), ascending.
std::vector<int> PresetTps(const PresetTable& table, std::string_view gpu, std::string_view topology);

// One ub_cfgs entry: TE's key, where its config came from, and TE's options.
struct TeUbCfg {
  std::string key;  // "qkv_fprop"
  PresetMatch match = PresetMatch::kExact;
  std::vector<std::string> comments;  // [0] op and shape, [1] the match, [2] the Braid config
  TeSettings te;                      // te.comments: what the nearest setting could not express
  // TE takes no entry for this key here (train: see above): te.comments[0]
  // says why, and the YAML writes the comments but not the key.
  bool omitted = false;
  // The options approximate the preset's config (TeExportInfo::nearest):
  // the file does not run what was tuned for this key.
  bool nearest = false;
  bool fp8 = false;             // an FP8 GEMM: fp8_buf is written
  OverlapConfig preset_config;  // what the preset that answered says
};

// A whole export as values: what ExportTeYaml writes, for callers that want
// the settings rather than the text (the Python module's te_ub_cfgs).
struct TeUbCfgs {
  std::vector<std::string> header;  // comment lines at the top of the file
  std::vector<TeUbCfg> layers;      // in the block's order, omitted keys included
};

// Every GEMM of `lw` that has a ub_cfgs key (sequence parallel: ag_gemm /
// gemm_rs, and in train the row-parallel wgrads' local GEMMs), each looked up
// with PresetTable::Lookup for its own pass (an exact entry, or the nearest
// shape's); a GEMM with no entry of its pass is an error (NotFound) naming
// the op (and in train its pass and key). A config TE cannot express is
// Invalid unless info.nearest (above).
Result<TeUbCfgs> BuildTeUbCfgs(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                               const std::string& topology, const TeExportInfo& info);

// The YAML text of `cfgs`: the header and each entry's comments as '#' lines.
std::string TeUbCfgsYaml(const TeUbCfgs& cfgs);

// BuildTeUbCfgs, then TeUbCfgsYaml.
Result<std::string> ExportTeYaml(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                                 const std::string& topology, const TeExportInfo& info);

}  // namespace braid
