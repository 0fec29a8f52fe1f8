// The deterministic inputs of a run: one A and B per GEMM op (empty for a
// layer's compute ops), the same in every process for the same seed.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "braid/host_matrix.h"
#include "braid/plan.h"

namespace braid::cpu {

struct RunInputs {
  std::vector<HostMatrix> a, b;  // indexed by op (one entry for a single-op plan)
  // FP8 runs: the per-tensor scale each op's A was cast with
  // (RoundInputsToFp8), 0 where it was not cast; empty otherwise. An
  // all-gather moves A under it bit-exactly (fp8_wire.h).
  std::vector<float> a_scales;
  // Links made between a layer's linears (block_inputs.h); none: every GEMM
  // op multiplies its own random A and B.
  int forward_links = 0, backward_links = 0;
};

// FP8 runs: fixed scales for every GEMM's A and B (RunOptions::fp8_scale_a /
// _b, TransformerEngine's delayed scaling); unset: each tensor's own amax.
struct Fp8Scaling {
  std::optional<float> a, b;
};

// Random A and B per op; with `block` (for --verify: it costs full-size
// sgemms in every process) a layer plan's become one block's tensors
// (block_inputs.h). Every process of an MPI run computes the same ones: the
// same random values and the same fp32 sgemms (OpenBLAS on hosts with
// different CPUs may round differently, far below the verify tolerance).
// FP8 plans then cast them (RoundInputsToFp8) under `scaling`.
RunInputs MakeRunInputs(const Plan& plan, uint64_t seed, bool block, const Fp8Scaling& scaling = {});

}  // namespace braid::cpu
