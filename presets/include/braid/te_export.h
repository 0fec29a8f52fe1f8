// `braid presets export-te`: a preset file's configs for one model's
// transformer block, written as TransformerEngine `ub_cfgs` YAML (the file
// Megatron-LM's --tp-comm-overlap-cfg names; Megatron yaml.safe_load()s it
// and passes it to transformer_engine.pytorch.initialize_ub(ub_cfgs=...)).
//
// One key per TP GEMM of the block: qkv -> qkv_fprop, out_proj -> proj_fprop,
// fc1 -> fc1_fprop, fc2 -> fc2_fprop, each with the seven options method,
// num_splits, num_sm, cga_size, set_sm_margin, atomic_gemm, use_ce (booleans
// as 0/1, as TE's example YAMLs write them). A Braid knob that TE cannot
// express is named in a comment above its key. Pure functions: no I/O.
#pragma once

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
  std::vector<std::string> comments;  // one line each, no '#'
};

// Maps one Braid config of an `op` GEMM at TP degree `tp` to TE's options.
// `default_comm_sms` is what comm_sms = 0 (backend default) resolves to.
TeSettings MapToTe(const OverlapConfig& config, Op op, int tp, int default_comm_sms);

// The TE ub_cfgs key of a layer op ("qkv" -> "qkv_fprop"); empty if none.
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
};

// A whole export as values: what ExportTeYaml writes, for callers that want
// the settings rather than the text (the Python module's te_ub_cfgs).
struct TeUbCfgs {
  std::vector<std::string> header;  // comment lines at the top of the file
  std::vector<TeUbCfg> layers;      // in the block's order
};

// Every TP GEMM of `lw` (sequence parallel: ag_gemm / gemm_rs), each looked
// up with PresetTable::Lookup (exact or nearest); a GEMM with no entry is an
// error (NotFound) naming the op.
Result<TeUbCfgs> BuildTeUbCfgs(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                               const std::string& topology, const TeExportInfo& info);

// The YAML text of `cfgs`: the header and each entry's comments as '#' lines.
std::string TeUbCfgsYaml(const TeUbCfgs& cfgs);

// BuildTeUbCfgs, then TeUbCfgsYaml.
Result<std::string> ExportTeYaml(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                                 const std::string& topology, const TeExportInfo& info);

}  // namespace braid
