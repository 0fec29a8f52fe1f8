// The cuBLASLt matmul the cuda backend launches for every GEMM step, behind
// one interface. Row-major operands (the forwarder swaps them for cuBLASLt's
// column-major view).
#pragma once

#include <cstdint>
#include <tuple>

#include "braid/cuda_api.h"

namespace braid::cuda {

// FP8 operands (MatmulArgs::dtype an FP8 type), the way cuBLASLt takes them
// on Hopper: the "TN" layout, so B is stored transposed (n×k row-major,
// ldb ≥ k), per-tensor dequantization scales as device fp32 scalars
// (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER: D = a_scale·b_scale·(A·B)), fp32
// accumulation (CUBLAS_COMPUTE_32F) and C in bf16.
struct Fp8Operands {
  DType b = DType::kFp8E4m3;  // B's FP8 type; A is MatmulArgs::dtype (not both E5M2)
  DevPtr a_scale = nullptr, b_scale = nullptr;
};

// c[m×n] = a[m×k] · b[k×n], leading dimensions in elements; fp32 accumulate.
// For FP8, b is stored as bᵀ[n×k] and c is bf16 (Fp8Operands).
struct MatmulArgs {
  int64_t m = 0, n = 0, k = 0;
  DevPtr a = nullptr, b = nullptr, c = nullptr;
  int64_t lda = 0, ldb = 0, ldc = 0;
  DType dtype = DType::kBf16;
  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: SMs the GEMM may use (0 = all),
  // so that the comm SM budget stays free.
  int sm_count_target = 0;
  bool tf32 = false;  // fp32 inputs: allow TF32 tensor cores
  Fp8Operands fp8;    // read only when IsFp8(dtype)
  // c += a·b (beta = 1) rather than c = a·b. Not part of MatmulKey: beta is
  // the call's, not the descriptor's or the heuristic's.
  bool accumulate = false;
};

// The rules cuBLASLt sets for an FP8 matmul on Hopper, checked before any
// call (Ok for a non-FP8 `dtype`): A and B FP8 and not both E5M2; m, n and k
// multiples of 16; lda and ldb (FP8, 1 byte) and ldc (bf16) multiples of 16
// bytes; every pointer 16-byte aligned; both scale pointers set. The message
// names the first rule broken.
Status CheckFp8Matmul(const MatmulArgs& args);

// What cuBLASLt's algorithm choice depends on in a MatmulArgs: everything
// but the addresses, except how far they are aligned (the heuristic may pick
// a kernel that needs more than 16 bytes). GEMMs with equal keys share one
// descriptor, its layouts and one heuristic answer, which the real
// forwarder makes once and keeps: made per call they cost tens of
// microseconds of host time per launch, and a ring's steps or a compute
// stand-in launch the same shape again and again.
struct MatmulKey {
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  DType dtype = DType::kBf16, b_dtype = DType::kBf16;  // b_dtype: FP8's B, else dtype
  int sm_count_target = 0;
  bool tf32 = false;
  int align = 0;  // the least alignment of a, b and c: 16, 32, 64, 128 or 256 bytes (less: 0)

  auto Tie() const { return std::tie(m, n, k, lda, ldb, ldc, dtype, b_dtype, sm_count_target, tf32, align); }
  bool operator<(const MatmulKey& o) const { return Tie() < o.Tie(); }
  bool operator==(const MatmulKey& o) const { return Tie() == o.Tie(); }
};
MatmulKey KeyOf(const MatmulArgs& args);

// One object per rank (it owns that device's handle and workspaces).
class BlasLtApi {
 public:
  virtual ~BlasLtApi() = default;
  virtual Status Matmul(const MatmulArgs& args, GpuStream s) = 0;
};

}  // namespace braid::cuda
