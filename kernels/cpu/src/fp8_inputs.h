// FP8 runs on the cpu backend: what an FP8 GEMM's inputs look like after
// TransformerEngine's cast, in fp32 arrays.
#pragma once

#include <string>
#include <vector>

#include "braid/backend.h"
#include "braid/plan.h"
#include "braid/workload.h"
#include "fp8_wire.h"
#include "run_inputs.h"

namespace braid::cpu {

// Rounds every GEMM op's A and B to `dtype`'s FP8 format with a per-tensor
// scale from the tensor's amax (TransformerEngine's current scaling:
// Fp8ScaleForAmax), saturating, and stores the dequantized values. Both the
// ranks and the verify reference then multiply the same FP8 values. Records
// each A's scale in in.a_scales. A fixed scale in `scaling` replaces the
// amax one for every A (or B); values beyond the format's max / scale
// saturate. A no-op for other dtypes.
void RoundInputsToFp8(DType dtype, RunInputs& in, const Fp8Scaling& scaling = {});

// The fixed scales of `options` (checked by CheckRunOptions), as floats.
Fp8Scaling Fp8ScalingOf(const RunOptions& options);

// How each op's transfers travel (fp8_wire.h: OpWireFormats with the scales
// RoundInputsToFp8 used).
std::vector<WireFormat> RunWireFormats(const Plan& plan, const RunInputs& in);

// One line saying what a run of `plan` really computes and moves on the cpu
// backend with `wires` (RunWireFormats); empty for fp32 that moves fp32.
// `scaling`: the fixed scales the inputs were cast with, if any.
std::string CpuDTypeNote(const Plan& plan, const std::vector<WireFormat>& wires, const Fp8Scaling& scaling = {});

}  // namespace braid::cpu
