// The cuBLASLt matmul the cuda backend launches for every GEMM step, behind
// one interface. Row-major operands (the forwarder swaps them for cuBLASLt's
// column-major view).
#pragma once

#include <cstdint>

#include "braid/cuda_api.h"

namespace braid::cuda {

// c[m×n] = a[m×k] · b[k×n], leading dimensions in elements; fp32 accumulate.
struct MatmulArgs {
  int64_t m = 0, n = 0, k = 0;
  DevPtr a = nullptr, b = nullptr, c = nullptr;
  int64_t lda = 0, ldb = 0, ldc = 0;
  DType dtype = DType::kBf16;
  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: SMs the GEMM may use (0 = all),
  // so that the comm SM budget stays free.
  int sm_count_target = 0;
  bool tf32 = false;  // fp32 inputs: allow TF32 tensor cores
};

// One object per rank (it owns that device's handle and workspaces).
class BlasLtApi {
 public:
  virtual ~BlasLtApi() = default;
  virtual Status Matmul(const MatmulArgs& args, GpuStream s) = 0;
};

}  // namespace braid::cuda
