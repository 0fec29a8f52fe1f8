// FP8 runs on the cpu backend: what an FP8 GEMM's inputs look like after
// TransformerEngine's cast, in fp32 arrays.
#pragma once

#include <string>

#include "braid/workload.h"
#include "run_inputs.h"

namespace braid::cpu {

// Rounds every GEMM op's A and B to `dtype`'s FP8 format with a per-tensor
// scale from the tensor's amax (TransformerEngine's current scaling:
// Fp8ScaleForAmax), saturating, and stores the dequantized values. Both the
// ranks and the verify reference then multiply the same FP8 values. A no-op
// for other dtypes.
void RoundInputsToFp8(DType dtype, RunInputs& in);

// One line saying what a run of `dtype` really computes and moves on the cpu
// backend; empty for fp32.
std::string CpuDTypeNote(DType dtype);

}  // namespace braid::cpu
