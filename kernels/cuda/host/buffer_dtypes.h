// What each plan buffer holds on the device. A plan's buffers are typeless
// ("element type = the workload dtype"); FP8 runs mix types: a GEMM's A and
// B in FP8, its C and everything summed in bf16 (Workload::OutDType), and a
// transfer moves Workload::CommDType. This types each buffer from its use.
#pragma once

#include <vector>

#include "braid/plan.h"
#include "braid/status.h"

namespace braid::cuda {

struct BufferType {
  DType dtype = DType::kBf16;
  // FP8 only. `transposed`: an FP8 GEMM's B, stored as Bᵀ (n×k) for
  // cuBLASLt's TN layout. `scale`: index into the run's per-tensor scales
  // (2·op for A, 2·op + 1 for B; -1: not a GEMM operand).
  bool transposed = false;
  int scale = -1;
};

// B's FP8 type in an FP8 run: E4M3. cuBLASLt has no E5M2 × E5M2 matmul, so
// an fp8_e5m2 workload runs A (and whatever moves with it) in E5M2 and B in
// E4M3, as TransformerEngine's HYBRID recipe pairs gradients and weights.
inline DType Fp8WeightDType(DType) { return DType::kFp8E4m3; }

// Every buffer of rank `rank`, index = BufferId. Not FP8: the workload dtype
// throughout. FP8: GEMM operands FP8 (A: the op's dtype, B: Fp8WeightDType,
// transposed), C and outputs OutDType, a buffer joined to one by a copy or
// collective the same; any other a transfer touches, that op's CommDType.
// Refuses (Invalid, one line naming rank, buffer or step) what this backend
// cannot run in FP8: a buffer both FP8 operand and bf16 result, a B that
// moves, a transfer whose buffer is not in the op's CommDType (FP8
// reduce-scatter partials: summing FP8 partials needs a dequantize-and-add
// kernel this backend lacks), a sum over FP8, and GEMMs that break
// cuBLASLt's FP8 rules (CheckFp8Matmul). A fused step's operands are typed
// as a GEMM step's; its GEMM is the core's, whose rules PlanCoreStep checks.
Result<std::vector<BufferType>> TypeBuffers(const Plan& plan, int rank);

// TypeBuffers for every rank, then nothing else: the run's up-front check.
Status CheckFp8Plan(const Plan& plan);

}  // namespace braid::cuda
