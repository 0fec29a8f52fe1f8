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
//
// ulysses (prefill; DeepSpeed-Ulysses sequence parallelism over the P = tp
// ranks, MakeUlyssesLayerWorkload): every rank holds the whole weights and
// seq/P tokens of each sequence. qkv (ag_gemm) and out_proj (gemm_rs) are
// the Ulysses projections, whose all-to-alls (to heads before attention,
// back to tokens after it) the run's a2a or a2a_direct plans
// (overlap_config.h); attention runs on heads/P heads over the whole
// sequence; fc1 and fc2 multiply the rank's own tokens by the whole weight
// with no communication (kRowLocalGemm).
//
// train (sequence parallel only, as TransformerEngine's overlaps need it):
// the forward above with every op named `<op>.fprop`, then the backward in
// the order Megatron-LM runs it — fc2, fc1, out_proj (dgrad then wgrad
// each), attention.backward, qkv. With X the layer input and dY the gradient
// of its output (tokens T = seq·batch, a layer of `in` inputs and `out`
// outputs):
//   column-parallel (qkv, fc1; in = hidden)
//     dgrad  dX = dY·Wᵀ, reduce-scattered: gemm_rs M=T, N=in, K=out
//     wgrad  dW = Xᵀ·dY after X is all-gathered again: ag_gemm M=in, N=out,
//            K=T (Braid gathers the in rows of Xᵀ rather than its token
//            columns: the same bytes and FLOPs, the layout GEMMs can chunk)
//   row-parallel (out_proj, fc2; out = hidden)
//     dgrad  dY all-gathered, dX = dY·Wᵀ: ag_gemm M=T, N=in, K=out
//     wgrad  dWᵀ = dYᵀ·X on the dY the dgrad gathered: a local GEMM M=out,
//            N=in (each rank its in/P columns), K=T
//   attention.backward  2.5× the forward's FLOPs (five matmuls to the
//            forward's two: Dao, "FlashAttention-2", 2023, §3.1.2) and 2× its
//            bytes (reads Q, K, V, O, dO; writes dQ, dK, dV)
// As in every layer plan, ops are chained by order, not data: each GEMM op
// multiplies its own A and B, and no op passes data to another at run time.
// The cpu backend's --verify fills those A and B with the tensors of one
// block (kernels/cpu/src/block_inputs.h): with X, W and dY of a linear as
// above, and norms, activation and residuals linearized, each op's A·B is its
// product in one fp32 reference forward and backward of the block, from
// whose tensors every rank loads its input windows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/budgets.h"
#include "braid/model_spec.h"
#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

enum class Phase { kPrefill, kDecode, kTrain };

std::string_view PhaseName(Phase p);
Result<Phase> ParsePhase(std::string_view name);

// Which of a linear layer's three GEMMs an op is (TransformerEngine's
// ub_cfgs keys are `<layer>_<pass>`). Forward-only phases are all fprop.
enum class Pass { kFprop, kDgrad, kWgrad };

std::string_view PassName(Pass p);
Result<Pass> ParsePass(std::string_view name);

enum class LayerOpKind {
  kTpGemm,     // a TP GEMM with its collective (`gemm.op`)
  kLocalGemm,  // column-parallel GEMM, no communication (`gemm` holds M, N, K, P)
  kAttention,  // compute only: `flops` and `bytes` per rank
  // Ulysses' MLP: rank r multiplies its M/P rows of A by the whole,
  // replicated B (`gemm` holds M, N, K, P); no communication.
  kRowLocalGemm,
};

struct LayerOp {
  std::string name;    // "qkv" (forward phases), "qkv.dgrad" (train)
  std::string linear;  // the layer it belongs to: qkv, attention, out_proj, fc1, fc2
  Pass pass = Pass::kFprop;
  bool column = false;  // a column-parallel linear (qkv, fc1)
  LayerOpKind kind = LayerOpKind::kTpGemm;
  Workload gemm;      // GEMM ops: the full GEMM
  double flops = 0;   // attention: FLOPs per rank
  int64_t bytes = 0;  // attention: bytes read and written per rank
  // This GEMM's own whole config (method, chunks, lanes, comm SMs, margin,
  // priority, engine: what the tuner chose for it, or what a ub_cfgs file
  // says); unset, it is derived from the run's config (planner.h). Every
  // phase but iso plans honour it.
  std::optional<OverlapConfig> config;
};

struct LayerWorkload {
  ModelSpec model;
  int64_t seq = 0, batch = 0;
  Phase phase = Phase::kPrefill;
  int tp = 1;
  DType dtype = DType::kBf16;
  bool sequence_parallel = true;
  // DeepSpeed-Ulysses sequence parallelism (above): tp is the Ulysses degree.
  bool ulysses = false;
  std::vector<LayerOp> ops;  // qkv, attention, out_proj, fc1, fc2

  int64_t tokens() const { return phase == Phase::kDecode ? batch : seq * batch; }
  // "llama3-70b prefill seq=4096 batch=1 bf16 P=8 sp=on" (sp=ulysses)
  std::string Describe() const;
};

// Checks sizes and divisibility by P (heads, kv_heads, ffn, and tokens when
// sequence parallel), each with a message naming the rule. sequence_parallel
// defaults to on for prefill and train and off for decode; train refuses it off.
Result<LayerWorkload> MakeLayerWorkload(const ModelSpec& model, int64_t seq, int64_t batch, Phase phase, int tp,
                                        DType dtype, std::optional<bool> sequence_parallel = std::nullopt);

// A Ulysses block (above) of degree `sp` (the layer's tp). Refused, each
// with a message naming the rule: phases other than prefill (decode has one
// token per sequence to split; a training step's weight gradients would be
// summed over the group, which is the data-parallel step's, not modelled
// here), and heads, kv_heads or seq not divisible by `sp` (each rank takes
// whole heads for attention and seq/P tokens of every sequence).
Result<LayerWorkload> MakeUlyssesLayerWorkload(const ModelSpec& model, int64_t seq, int64_t batch, Phase phase, int sp,
                                               DType dtype);

// Causal attention FLOPs per rank for the queries at positions [q_begin, q_end)
// of every sequence: heads/P · 4·batch·head_dim · (q_end² − q_begin²)/2 in
// prefill (QKᵀ and ·V, half the score matrix); decode (one query over a cache
// of seq): 4·batch·seq·head_dim·heads/P.
double AttentionFlops(const LayerWorkload& lw, int64_t q_begin, int64_t q_end);
// Bytes attention reads and writes per rank for those queries (Q, O, and the K
// and V of the positions they attend to).
int64_t AttentionBytes(const LayerWorkload& lw, int64_t q_begin, int64_t q_end);

// attention.backward's FLOPs and bytes per unit of the forward's (see above).
inline constexpr double kAttentionBackwardFlopsRatio = 2.5;
inline constexpr int64_t kAttentionBackwardBytesRatio = 2;

}  // namespace braid
