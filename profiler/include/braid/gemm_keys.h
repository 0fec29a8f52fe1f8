// Which TP GEMM of a transformer block each GEMM of a trace is: its
// TransformerEngine ub_cfgs key (qkv, proj, fc1, fc2 × fprop, dgrad,
// wgrad), for `braid report --by-gemm` (braid/gemm_overlap.h).
//
// Three ways, in this order of trust:
//   te_nvtx        TE's NVTX ranges (NVTE_NVTX_ENABLED=1; Nsight Systems
//                  traces), read from transformer_engine/pytorch/module/*.py
//                  at d0067d0da6cb: "transformer_engine.<Module>.<forward|
//                  backward>.<qkv|proj|fc1|fc2>.<gemm|dgrad_gemm|wgrad_gemm>"
//   megatron_nvtx  Megatron-LM's NVTX ranges (its nvtx_range_push, on with
//                  configure_nvtx_profiling; megatron/core at d98e8a64dd):
//                  "<module>.<function>.<suffix>", so
//                  "megatron.core.transformer.attention.forward.qkv",
//                  "...attention.forward.linear_proj",
//                  "megatron.core.transformer.mlp.forward.linear_fc1" and
//                  "...mlp.forward.linear_fc2"; forward only (its backward
//                  runs in autograd, without ranges)
//   shape          the GEMM's shape, from the PyTorch op that launched it
//                  (Kineto's cpu_op events with record_shapes=True: "Input
//                  Dims"), against one rank's GEMM of each key of the block
//                  the caller names (model, sequence, batch, TP size). TE
//                  calls its GEMMs outside PyTorch's ops, so this maps the
//                  GEMMs of plain PyTorch, Megatron's local layers and
//                  async-TP.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/budgets.h"

namespace braid {

struct GemmOverlapReport;

// The key a TE or Megatron NVTX label names, and which of the two ("" and
// "" when it names none).
struct LabelKey {
  std::string key;     // "qkv_fprop"
  std::string source;  // "te_nvtx" | "megatron_nvtx"
};
LabelKey GemmKeyOfLabel(std::string_view label);

// PyTorch ops (cpu_op) that run one linear layer's GEMM per call: aten::mm,
// addmm, matmul, linear, _scaled_mm, and PyTorch async-TP's symm_mem
// fused_all_gather_matmul, fused_all_gather_scaled_matmul,
// fused_matmul_reduce_scatter and fused_scaled_matmul_reduce_scatter
// (torch/distributed/_symmetric_memory/__init__.py). Batched matmuls
// (attention's) are not.
bool IsGemmCpuOpName(std::string_view name);

// An imported cpu op's marker name: the op's name, a space and its Input
// Dims without whitespace ("aten::mm [[8192,4096],[4096,1536]]"); the name
// alone when the dims are absent, longer than kMaxInputDimsText or not
// nested arrays of integers.
std::string CpuOpMarkerName(std::string_view op, std::string_view input_dims_json);

// One rank's GEMM C[m×n] = A[m×k]·B[k×n] as an op's marker names it.
// m_is_shard: async-TP's fused all-gather matmul names its rank's shard of
// A: the GEMM runs on m·P rows.
struct TracedGemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool m_is_shard = false;
};
std::optional<TracedGemmShape> GemmShapeOfCpuOp(std::string_view marker);

// One rank's GEMM of a key of the caller's block (m, n, k as above; which
// of m and n is which does not matter: a wgrad may run transposed).
struct KeyShape {
  std::string key;
  int64_t m = 0, n = 0, k = 0;
};

// Each row without a key and with a shape gets the key whose shape is its
// own (source "shape"); `tp` multiplies a shard's rows. A row left without
// one gets `unmapped_why` (no label and no recorded shape; a shape that no
// key has; a shape two keys share).
void AssignKeysByShape(GemmOverlapReport* report, const std::vector<KeyShape>& shapes, int tp);

// Why rows without a key have none, where AssignKeysByShape was not run.
void ExplainUnmapped(GemmOverlapReport* report);

}  // namespace braid
