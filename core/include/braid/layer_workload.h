// A layer workload: the tensor-parallel ops of one transformer block of a
// model, in execution order, for one phase, sequence length and batch.
//
//   qkv        sequence parallel: ag_gemm M=tokens, N=(heads+2·kv_heads)·head_dim, K=hidden;
//              otherwise a plain column-parallel GEMM with no communication
//   attention  a compute step: causal attention FLOPs of the rank's heads
//   out_proj   gemm_rs (sequence parallel) or gemm_ar; M=tokens, N=hidden, K=heads·head_dim
//   fc1        like qkv with N = (gated ? 2 : 1)·ffn
//   fc2        like out_proj with K = ffn
//
// prefill: tokens = seq·batch, attention over the seq tokens themselves;
// decode: tokens = batch (one new token each), attention over a KV cache of seq.
// Norms, residual adds and rotary embeddings are not modelled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/model_spec.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

enum class Phase { kPrefill, kDecode };

std::string_view PhaseName(Phase p);
Result<Phase> ParsePhase(std::string_view name);

enum class LayerOpKind {
  kTpGemm,     // a TP GEMM with its collective (`gemm.op`)
  kLocalGemm,  // column-parallel GEMM, no communication (`gemm` holds M, N, K, P)
  kAttention,  // compute only: `flops` and `bytes` per rank
};

struct LayerOp {
  std::string name;
  LayerOpKind kind = LayerOpKind::kTpGemm;
  Workload gemm;      // GEMM ops: the full GEMM
  double flops = 0;   // attention: FLOPs per rank
  int64_t bytes = 0;  // attention: bytes read and written per rank
};

struct LayerWorkload {
  ModelSpec model;
  int64_t seq = 0, batch = 0;
  Phase phase = Phase::kPrefill;
  int tp = 1;
  DType dtype = DType::kBf16;
  bool sequence_parallel = true;
  std::vector<LayerOp> ops;  // qkv, attention, out_proj, fc1, fc2

  int64_t tokens() const { return phase == Phase::kPrefill ? seq * batch : batch; }
  // "llama3-70b prefill seq=4096 batch=1 bf16 P=8 sp=on"
  std::string Describe() const;
};

// Checks sizes and divisibility by P (heads, kv_heads, ffn, and tokens when
// sequence parallel), each with a message naming the rule. sequence_parallel
// defaults to on for prefill and off for decode.
Result<LayerWorkload> MakeLayerWorkload(const ModelSpec& model, int64_t seq, int64_t batch, Phase phase, int tp,
                                        DType dtype, std::optional<bool> sequence_parallel = std::nullopt);

// Causal attention FLOPs per rank for the queries at positions [q_begin, q_end)
// of every sequence: heads/P · 4·batch·head_dim · (q_end² − q_begin²)/2 in
// prefill (QKᵀ and ·V, half the score matrix); decode (one query over a cache
// of seq): 4·batch·seq·head_dim·heads/P.
double AttentionFlops(const LayerWorkload& lw, int64_t q_begin, int64_t q_end);
// Bytes attention reads and writes per rank for those queries (Q, O, and the K
// and V of the positions they attend to).
int64_t AttentionBytes(const LayerWorkload& lw, int64_t q_begin, int64_t q_end);

}  // namespace braid
