// TransformerEngine's ub_cfgs as TE itself reads them, and the one mapping
// between a key's TE options and the Braid config that runs what TE runs.
// Rules from transformer_engine/pytorch/module/base.py `initialize_ub` and
// common/comm_gemm_overlap/comm_gemm_overlap.cpp (TransformerEngine d0067d0,
// 2026-08-22):
//
//   key          what TE overlaps          TE's default   Braid config
//   qkv_fprop    all-gather + GEMM         ring_exchange  ring (1 step per rank)
//   fc1_fprop    all-gather + GEMM         ring_exchange  ring
//   proj_dgrad   all-gather + GEMM         ring_exchange  ring
//   fc2_dgrad    all-gather + GEMM         ring_exchange  ring
//   proj_fprop   GEMM + reduce-scatter     pipeline       chunked (num_splits); ring_exchange: direct
//   fc2_fprop    GEMM + reduce-scatter     pipeline       chunked; ring_exchange: direct
//   qkv_dgrad    bulk all-gather of X      bulk           bulk; another method makes it a
//   fc1_dgrad      beside the dgrad GEMM                    reduce-scatter (direct / chunked)
//   qkv_wgrad    bulk reduce-scatter of dX bulk           bulk; refused beside a non-bulk dgrad,
//   fc1_wgrad      beside the wgrad GEMM                    whose wgrad then runs without overlap
//   proj_wgrad   fed by proj_dgrad's ring  external       external
//   fc2_wgrad    fed by fc2_dgrad's ring   external       external
//
// Options of every key and TE's defaults (get_default_config): method;
// is_reduce_scatter (by key); num_sm 1 for ring_exchange, else 16; cga_size 1
// for ring_exchange, else 2; set_sm_margin off for ring_exchange, else on;
// num_splits tp for ring_exchange, else 4; aggregate 0; atomic_gemm 0;
// use_ce 1; fp8_buf 1 for the all-gather keys; comm_priority the device's
// greatest stream priority and gemm_priority its least;
// pipeline_rs_overlap_first_gemm 0.
//
// Each option as the sim runs it:
//   method, num_splits, use_ce, num_sm, set_sm_margin, comm/gemm priority:
//     the plan (algorithm, chunks, comm_engine, comm_sms, sm_margin,
//     comm_high_priority: comm above the GEMM when comm_priority <
//     gemm_priority, CUDA's order; equal otherwise).
//   fp8_buf: what an FP8 run's transfers move (TE forces 1 for all-gathers,
//     Braid's default; 1 on a reduce-scatter is refused: Braid's chunked and
//     direct plans reduce bf16 partials).
//   cga_size, aggregate, pipeline_rs_overlap_first_gemm: accepted and kept,
//     with a note that the sim's figure does not change with them (cluster
//     launch; aggregate's 2-block ring steps and the first GEMM's launch
//     order are not modelled).
//   atomic_gemm 1: refused, as TE built with CUDA 13 cannot run it (cuBLAS 13
//     removed the atomic-sync attributes TE's atomic GEMM needs).
// Not modelled either: TE's pipeline runs its last reduce-scatter chunk on
// 32 SMs (UB_MAX_SM) whatever num_sm says; Braid runs it on num_sm.
//
// Pure functions: the YAML reader takes text (read through the safe
// reader by its caller). Nothing throws.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/budgets.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

enum class TeMethod { kRingExchange, kPipeline, kBulk, kExternal };
std::string_view TeMethodName(TeMethod m);  // "ring_exchange" | "pipeline" | "bulk" | "external"
Result<TeMethod> ParseTeMethod(std::string_view name);

// One ub_cfgs key: `<layer>_<pass>` with out_proj written `proj`.
struct TeKey {
  std::string_view name;    // "qkv_fprop"
  std::string_view linear;  // the layer op's linear: "qkv", "out_proj", "fc1", "fc2"
  Pass pass = Pass::kFprop;
  bool column = false;  // qkv, fc1
};
// The twelve keys: the fprop keys in the forward's order, then each
// linear's dgrad and wgrad in the backward's.
std::span<const TeKey> TeKeys();
const TeKey* FindTeKey(std::string_view name);
// The key of a layer op ("qkv", "qkv.fprop", "out_proj.wgrad", ...), or null
// (attention).
const TeKey* TeKeyOfOp(std::string_view layer_op_name);

// Every option of one key, as TE passes them to its userbuffer objects.
// The flags are 0 / 1, as TE's YAML files write them.
struct TeOptions {
  TeMethod method = TeMethod::kRingExchange;
  int is_reduce_scatter = 0;
  int num_sm = 1;
  int cga_size = 1;
  int set_sm_margin = 0;
  int num_splits = 1;
  int aggregate = 0;
  int atomic_gemm = 0;
  int use_ce = 1;
  int fp8_buf = 0;
  // Unset: TE's defaults (comm at the greatest priority, the GEMM at the
  // least). CUDA: a lower number is a higher priority.
  std::optional<int> comm_priority, gemm_priority;
  int pipeline_rs_overlap_first_gemm = 0;

  friend bool operator==(const TeOptions&, const TeOptions&) = default;
};

// What one key of a user's ub_cfgs sets; unset fields keep TE's defaults.
struct TeGivenOptions {
  std::optional<TeMethod> method;
  std::optional<int> is_reduce_scatter, num_sm, cga_size, set_sm_margin, num_splits, aggregate, atomic_gemm, use_ce,
      fp8_buf, comm_priority, gemm_priority, pipeline_rs_overlap_first_gemm;
};

// A user's ub_cfgs file: its keys in file order.
struct TeUbCfgsFile {
  std::vector<std::pair<std::string, TeGivenOptions>> keys;
  const TeGivenOptions* Find(std::string_view key) const;
};

// Parses ub_cfgs YAML (what Megatron-LM's --tp-comm-overlap-cfg names): a
// mapping of keys to mappings of options. Read with yaml-cpp. Invalid, in one
// line naming `origin`, the key and the option, for text that is not YAML, a
// key or option TE does not have, a value of the wrong type (flags take
// true/false or 0/1), nesting deeper than ub_cfgs has, or anchors/aliases.
Result<TeUbCfgsFile> ParseTeUbCfgsYaml(std::string_view text, std::string_view origin);

// A ub_cfgs file read through the safe reader (a regular file of at most
// kMaxUbCfgsBytes: a FIFO or a device is refused before any read) and
// parsed. In braid_te_yaml.
Result<TeUbCfgsFile> LoadTeUbCfgsFile(const std::string& path);

// Why TE refuses `method` for `key` (initialize_ub: bulk only on a column
// layer's dgrad and wgrad, external only and always on a row layer's wgrad,
// a column layer's wgrad only in bulk), or "" where it takes it. What both
// a user's file (ResolveTeUbCfgs) and a Braid config (TeOptionsOf) are
// checked by.
std::string TeMethodRefusal(const TeKey& key, TeMethod method);

// A ub_cfgs file applied to a block, as `braid run --ub-cfgs`, `braid.run
// (ub_cfgs=)` and `tune --baseline` take it: the file read
// (LoadTeUbCfgsFile) and resolved (ResolveTeUbCfgs) for `lw` on a GPU of
// `gpu_sms` SMs, `lw` with every GEMM as TE runs it (WithTeConfigs), and the
// notes a run keeps (the file, what each key's options did, file-wide
// notes). In braid_te_yaml.
struct TeConfiguredBlock {
  LayerWorkload layer;
  std::vector<std::string> notes;
};
Result<TeConfiguredBlock> LoadTeUbCfgsBlock(const std::string& path, const LayerWorkload& lw, int gpu_sms);

// TE's defaults for `key` at TP size `tp` when `method` is its method
// (get_default_config; a column dgrad given a non-bulk method becomes a
// reduce-scatter, as initialize_ub switches it).
TeOptions TeDefaultOptions(const TeKey& key, TeMethod method, int tp);
// The method TE gives `key` when the file sets none.
TeMethod TeDefaultMethod(const TeKey& key);

// One key as TE will run it for a block, and Braid's config of the GEMM.
struct TeKeyConfig {
  const TeKey* key = nullptr;
  TeOptions options;   // defaults filled in, the user's options over them
  bool given = false;  // the file names the key
  // False: TE gives this GEMM no userbuffer overlap (a column wgrad beside a
  // non-bulk dgrad): `config` is then serial.
  bool overlapped = true;
  OverlapConfig config;
  std::vector<std::string> notes;  // options accepted without changing the sim's figure, and why
};

// Every key of `lw` (a sequence-parallel prefill: the four fprop keys; train:
// all twelve) as TE runs it under `file` (null: no user config, TE's
// defaults). `gpu_sms`: the GPU's SM count (num_sm must stay below it).
// Invalid, naming the key and the option, for what TE refuses (pipeline on
// an all-gather, bulk other than on a column layer's dgrad/wgrad, external
// other than on a row layer's wgrad, a column wgrad beside a non-bulk dgrad,
// is_reduce_scatter against the key), what TE's userbuffers cannot take
// (num_sm outside 1..32, cga_size outside 1..8), atomic_gemm 1, a
// num_splits that does not divide the GEMM's rows, and fp8_buf 1 on an FP8
// reduce-scatter. Keys the phase has no GEMM for (the backward keys of a
// prefill) are checked and then left out, with a note.
struct TeBlockConfig {
  std::vector<TeKeyConfig> keys;   // in the block's op order
  std::vector<std::string> notes;  // file-wide notes
};
Result<TeBlockConfig> ResolveTeUbCfgs(const TeUbCfgsFile* file, const LayerWorkload& lw, int gpu_sms);

// `lw` with every GEMM op's config set from `block` (LayerOp::config).
LayerWorkload WithTeConfigs(const LayerWorkload& lw, const TeBlockConfig& block);

// The Braid config that runs `options` on `w` (a key's GEMM);
// a num_sm that can change nothing there (CommSmsTakeEffect: a copy-engine
// all-gather without margin) is left out, as comm_sms 0.
OverlapConfig TeConfigOf(const TeOptions& options, const Workload& w);

// The inverse: the TE options that run exactly `config` for `key`, or
// Invalid with one line saying what TE cannot express (a method TE does not
// offer the key, sub-chunks, uneven splits, a second comm stream, comm_sms 0
// or above 32, a comm dtype other than TE's). `dgrad_bulk`: for a column
// wgrad, whether its dgrad is bulk (TE takes the key only then).
// TeConfigOf(*TeOptionsOf(c, ...), w) == c for every config it accepts,
// but where c's comm_sms is 0 and changes nothing (CommSmsTakeEffect: a
// copy-engine all-gather without margin), which TE's default count stands
// for, and a bulk dgrad's wgrad_comm_sms, which its wgrad key carries.
Result<TeOptions> TeOptionsOf(const OverlapConfig& config, const TeKey& key, const Workload& w, int tp);

// userbuffers' comm kernels take at most this many SMs (NVTE_MAX_SMS).
inline constexpr int kTeMaxCommSms = 32;

}  // namespace braid
