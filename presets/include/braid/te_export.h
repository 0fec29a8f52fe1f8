// `braid presets export-te`: a preset file's configs for one model's
// transformer block, written as TransformerEngine `ub_cfgs` YAML (the file
// Megatron-LM's --tp-comm-overlap-cfg names; Megatron yaml.safe_load()s it
// and passes it to transformer_engine.pytorch.initialize_ub(ub_cfgs=...)).
//
// One key per TP GEMM of the block, `<layer>_<pass>` with out_proj written
// `proj`: a forward phase (prefill) has the four fprop keys qkv_fprop,
// proj_fprop, fc1_fprop, fc2_fprop; phase train adds the eight backward keys
// {qkv,proj,fc1,fc2}_{dgrad,wgrad}. Each key has the seven options method,
// num_splits, num_sm, cga_size, set_sm_margin, atomic_gemm, use_ce (booleans
// as 0/1, as TE's example YAMLs write them). A Braid knob that TE cannot
// express is named in a comment above its key.
//
// TE pairs each backward GEMM with its dgrad (initialize_ub), so a train
// export writes only what TE accepts beside the dgrad it wrote:
//   - a column-parallel wgrad (qkv_wgrad, fc1_wgrad) is bulk when its dgrad
//     is bulk, and left out otherwise (TE refuses a wgrad entry beside a
//     ring_exchange or pipeline dgrad, and runs that wgrad without overlap);
//   - a row-parallel wgrad (proj_wgrad, fc2_wgrad) is external when its
//     preset is (its dgrad is then ring_exchange, as TE requires), and left
//     out when its preset is serial: TE takes no other method for the key,
//     and left out it keeps TE's own default;
//   - bulk and external are written only for the keys TE takes them for.
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
#include "braid/workload.h"

namespace braid {

enum class TeMethod { kRingExchange, kPipeline, kBulk, kExternal };
std::string_view TeMethodName(TeMethod m);  // "ring_exchange" | "pipeline" | "bulk" | "external"

// One layer's TE userbuffer options, and what the mapping could not express.
struct TeSettings {
  TeMethod method = TeMethod::kRingExchange;
  int num_splits = 1;
  int num_sm = 1;
  int cga_size = 1;
  int set_sm_margin = 0;
  int atomic_gemm = 0;
  int use_ce = 0;
  // FP8 exports only (unset otherwise, so bf16 files stay as they were): 1
  // where the GEMM's all-gather moves FP8 (Workload::CommDType), 0 where its
  // collective moves the bf16 output.
  std::optional<int> fp8_buf;
  std::vector<std::string> comments;  // one line each, no '#'
};

// Maps one Braid config of an `op` GEMM at TP degree `tp` to TE's options.
// `default_comm_sms` is what comm_sms = 0 (backend default) resolves to.
TeSettings MapToTe(const OverlapConfig& config, Op op, int tp, int default_comm_sms);

// The TE ub_cfgs key of a layer op: "qkv" and "qkv.fprop" -> "qkv_fprop",
// "qkv.dgrad" -> "qkv_dgrad", "out_proj.wgrad" -> "proj_wgrad"; empty for an
// op with none (attention, attention.backward).
std::string_view TeLayerKey(std::string_view layer_op_name);

struct TeExportInfo {
  std::string braid_version = "unknown";
  std::string source;                                       // the preset file, as named on the command line
  int default_comm_sms = 16;                                // comm_sms = 0 resolves to this
  std::string default_comm_sms_origin = "Braid's default";  // "topology h100-sxm nccl_channels"
};

// The TP degrees of the table's entries for (gpu, topology), ascending.
std::vector<int> PresetTps(const PresetTable& table, std::string_view gpu, std::string_view topology);

// One ub_cfgs entry: TE's key, where its config came from, and TE's options.
struct TeUbCfg {
  std::string key;  // "qkv_fprop"
  PresetMatch match = PresetMatch::kExact;
  std::vector<std::string> comments;  // [0] op and shape, [1] the match, [2] the Braid config
  TeSettings te;                      // te.comments: what TE cannot express
  // TE takes no entry for this key here (train: see above): te.comments[0]
  // says why, and the YAML writes the comments but not the key.
  bool omitted = false;
};

// A whole export as values: what ExportTeYaml writes, for callers that want
// the settings rather than the text (the Python module's te_ub_cfgs).
struct TeUbCfgs {
  std::vector<std::string> header;  // comment lines at the top of the file
  std::vector<TeUbCfg> layers;      // in the block's order, omitted keys included
};

// Every GEMM of `lw` that has a ub_cfgs key (sequence parallel: ag_gemm /
// gemm_rs, and in train the row-parallel wgrads' local GEMMs), each looked up
// with PresetTable::Lookup for its own pass (exact or nearest); a GEMM with no
// entry of its pass is an error (NotFound) naming the op (and in train its
// pass and key).
Result<TeUbCfgs> BuildTeUbCfgs(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                               const std::string& topology, const TeExportInfo& info);

// The YAML text of `cfgs`: the header and each entry's comments as '#' lines.
std::string TeUbCfgsYaml(const TeUbCfgs& cfgs);

// BuildTeUbCfgs, then TeUbCfgsYaml.
Result<std::string> ExportTeYaml(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                                 const std::string& topology, const TeExportInfo& info);

}  // namespace braid
