// Data parallelism beside tensor parallelism: the collectives a data-parallel
// (DP) group runs for one transformer block's weights, each expressed as a
// GEMM op over the DP group so that every TP planner (serial, chunked, ring,
// bidir_ring, direct), the plan checker and every backend take it as it is.
//
// A TP × DP grid: rank (t, d) is GPU t + d·tp. The TP group of replica d is
// GPUs d·tp .. d·tp + tp − 1 (a block's TP plan), the DP group of column t is
// GPUs t, t + tp, ... (its ranks 0..dp−1; DpGroupTopology below gives the
// links it crosses). Each DP rank holds its own micro-batch of T = seq·batch
// tokens and the same TP shard of every weight: W_s = in × out/tp for a
// column-parallel linear (qkv, fc1), in/tp × out for a row-parallel one
// (out_proj, fc2).
//
//   gradient reduce (`<linear>.grad_rs`, ZeRO 1-3; `<linear>.grad_ar`,
//     plain DDP): dW_s = Xᵀ·dY summed over the DP ranks' tokens — a gemm_rs
//     (gemm_ar) with M = W_s rows, N = W_s columns, K = T·dp and P = dp: each
//     rank multiplies its own tokens (a K shard) and the partial sums are
//     reduce-scattered (all-reduced). Planned serial, this is the wgrad GEMM
//     then the collective after it (what a bucket does); planned ring or
//     direct, it is CommFuse's decomposition: the wgrad is computed block by
//     block, each block sent to its owner as soon as it is done, and no
//     collective is left after the GEMM.
//   parameter gather (`<linear>.param_ag`, ZeRO-3 / FSDP before every
//     forward, and ZeRO 1-2 after the optimizer step, overlapped with the
//     next forward as Megatron's --overlap-param-gather does): each DP rank
//     holds 1/dp of W_s and needs all of it for its fprop Y = X·W_s. The
//     gathered operand is the weight, so it is planned as the ag_gemm of the
//     transposed product Yᵀ = W_sᵀ·Xᵀ: M = W_s columns (the gathered rows of
//     W_sᵀ), K = W_s rows, N = T·dp (each rank's own tokens a column shard),
//     P = dp. A ring or direct plan multiplies each weight block as it
//     lands (CommFuse's decomposition of the gather into the fprop).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/topology.h"
#include "braid/workload.h"

namespace braid {

// Which collectives the DP group runs (DeepSpeed's stage names; Megatron's
// distributed optimizer is stage 1; PyTorch FSDP's FULL_SHARD is stage 3).
//   kNone   plain DDP: gradients all-reduced, no parameter gather.
//   k1, k2  gradients reduce-scattered; parameters gathered once per step
//           after the optimizer (stage 2 also shards the gradient memory:
//           the same collectives, so the same time).
//   k3      gradients reduce-scattered; parameters gathered before every
//           layer's forward and again before its backward (FSDP's
//           reshard_after_forward).
enum class ZeroStage { kNone, k1, k2, k3 };

std::string_view ZeroStageName(ZeroStage z);  // "none", "1", "2", "3"
// "0" or "none", "1", "2", "3"; the message names `zero` and the range.
Result<ZeroStage> ParseZeroStage(std::string_view text);

enum class DpOpKind { kGradReduce, kParamGather };

std::string_view DpOpKindName(DpOpKind k);  // "grad_reduce", "param_gather"

// One DP collective of one linear, as a GEMM op over the DP group (header).
struct DpOp {
  std::string name;    // "fc1.grad_rs", "fc1.grad_ar", "fc1.param_ag"
  std::string linear;  // qkv, out_proj, fc1, fc2
  DpOpKind kind = DpOpKind::kGradReduce;
  Workload gemm;            // P = dp
  int64_t weight_rows = 0;  // W_s: the TP shard this collective moves
  int64_t weight_cols = 0;
  int64_t params() const { return weight_rows * weight_cols; }
  // Bytes of the whole W_s (or its gradient) in the op's comm dtype: what a
  // bucket holding this linear adds.
  int64_t bytes() const;
};

// The parameters a block's gradient ops reduce (what buckets are filled with).
int64_t GradParams(const std::vector<DpOp>& ops);

// Whether `a` can plan a DP op: only plans of the TP collectives' sharding
// apply (a DP rank holds its own tokens of X and dY; a2a assumes every rank
// holds all of B; iso, bulk and external are a layer's; fused is not a DP
// kernel): serial, chunked, ring, bidir_ring, direct.
bool PlansDpOps(Algorithm a);

// The DP ops of one block of `train` (a train layer workload) on a DP group
// of `dp` ranks, in backward order for gradients (fc2, fc1, out_proj, qkv)
// then forward order for parameter gathers (qkv, out_proj, fc1, fc2);
// parameter gathers only with ZeRO. dp = 1 gives none. Invalid, naming `dp`
// and the size, when a shard does not divide: ZeRO scatters each gradient's
// rows and gathers each weight's columns over the dp ranks.
Result<std::vector<DpOp>> MakeDpOps(const LayerWorkload& train, int dp, ZeroStage zero);

// The links the DP group of a tp × dp grid on `topo` crosses, as a topology
// whose GPUs 0..dp−1 are that group's ranks (GPUs t, t + tp, ...): the same
// GPU and links; ranks that share an NVLink domain talk over `intra` (NVLink
// pairs only when tp = 1), others over `inter`, whose NICs are shared by
// every column's DP group at once (each DP group of a node gets
// nics_per_node / gpus_per_node NICs per GPU of it; below one NIC, a NIC's
// share of its rate). Invalid, naming `dp`, when tp·dp GPUs do not fit or
// the TP group does not tile the nodes (tp must divide gpus_per_node or be
// a multiple of it).
Result<Topology> DpGroupTopology(const Topology& topo, int tp, int dp);

}  // namespace braid
