// CheckFp8Matmul: cuBLASLt's FP8 rules on Hopper (cublasLtMatmul, "FP8"),
// shared by the forwarder, the fake and the backend's up-front check.
#include <cstdint>
#include <string>

#include "braid/blaslt_api.h"

namespace braid::cuda {

namespace {

bool Aligned16(DevPtr p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

Status CheckFp8Matmul(const MatmulArgs& m) {
  if (!IsFp8(m.dtype)) return Status::Ok();
  const std::string shape =
      std::to_string(m.m) + "x" + std::to_string(m.n) + "x" + std::to_string(m.k) + " (m x n x k)";
  if (!IsFp8(m.fp8.b)) return Status::Invalid("FP8 matmul " + shape + ": B must be FP8 too");
  if (m.dtype == DType::kFp8E5m2 && m.fp8.b == DType::kFp8E5m2) {
    return Status::Invalid("FP8 matmul " + shape + ": cuBLASLt has no E5M2 x E5M2 matmul (one operand must be E4M3)");
  }
  if (m.m % 16 != 0 || m.n % 16 != 0 || m.k % 16 != 0) {
    return Status::Invalid("FP8 matmul " + shape + ": cuBLASLt's FP8 kernels need m, n and k multiples of 16");
  }
  if (m.lda % 16 != 0 || m.ldb % 16 != 0 || (m.ldc * 2) % 16 != 0) {
    return Status::Invalid("FP8 matmul " + shape + ": leading dimensions lda " + std::to_string(m.lda) + ", ldb " +
                           std::to_string(m.ldb) + " (FP8) and ldc " + std::to_string(m.ldc) +
                           " (bf16) must be multiples of 16 bytes");
  }
  if (!Aligned16(m.a) || !Aligned16(m.b) || !Aligned16(m.c)) {
    return Status::Invalid("FP8 matmul " + shape + ": A, B and C must be 16-byte aligned");
  }
  if (m.fp8.a_scale == nullptr || m.fp8.b_scale == nullptr) {
    return Status::Invalid("FP8 matmul " + shape + ": A_SCALE_POINTER and B_SCALE_POINTER must both be set");
  }
  return Status::Ok();
}

}  // namespace braid::cuda
