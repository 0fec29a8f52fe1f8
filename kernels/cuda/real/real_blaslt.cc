// BlasLtApi forwarded to cuBLASLt. Row-major C = A·B is computed as the
// column-major Cᵀ = Bᵀ·Aᵀ (no transposes, operands swapped). One handle per
// rank; one workspace per stream, so concurrent GEMM lanes never share one.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <map>

#include "cuda_check.h"
#include "real/real_seams.h"

#define BRAID_CUBLAS_STATUS(call)                                                                           \
  ([&]() -> ::braid::Status {                                                                               \
    const cublasStatus_t braid_s_ = (call);                                                                 \
    if (braid_s_ == CUBLAS_STATUS_SUCCESS) return ::braid::Status::Ok();                                    \
    return ::braid::Status::Internal(std::string(#call) + " failed: " + cublasLtGetStatusString(braid_s_) + \
                                     " (" BRAID_SOURCE_FILE ":" + std::to_string(__LINE__) + ")");          \
  }())

namespace braid::cuda {

namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

cudaDataType_t DataType(DType d) {
  return d == DType::kFp32 ? CUDA_R_32F : d == DType::kFp16 ? CUDA_R_16F : CUDA_R_16BF;
}

class RealBlasLt : public BlasLtApi {
 public:
  ~RealBlasLt() override {
    for (auto& [stream, ws] : workspace_) (void)cudaFree(ws);
    if (handle_ != nullptr) (void)cublasLtDestroy(handle_);
  }
  Status Init() { return BRAID_CUBLAS_STATUS(cublasLtCreate(&handle_)); }

  Status Matmul(const MatmulArgs& m, GpuStream s) override {
    if (m.m == 0 || m.n == 0) return Status::Ok();
    void* ws = nullptr;
    BRAID_RETURN_IF_ERROR(Workspace(s, ws));
    const cudaDataType_t type = DataType(m.dtype);
    const cublasComputeType_t compute =
        m.dtype == DType::kFp32 && m.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    Status st = BRAID_CUBLAS_STATUS(cublasLtMatmulDescCreate(&desc, compute, CUDA_R_32F));
    const int32_t sms = m.sm_count_target;
    if (st.ok() && sms > 0) {
      st = BRAID_CUBLAS_STATUS(
          cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sms, sizeof sms));
    }
    // Column-major view: "A" = B (n×k, ld ldb), "B" = A (k×m, ld lda), D = Cᵀ (n×m, ld ldc).
    if (st.ok()) st = BRAID_CUBLAS_STATUS(cublasLtMatrixLayoutCreate(&la, type, uint64_t(m.n), uint64_t(m.k), m.ldb));
    if (st.ok()) st = BRAID_CUBLAS_STATUS(cublasLtMatrixLayoutCreate(&lb, type, uint64_t(m.k), uint64_t(m.m), m.lda));
    if (st.ok()) st = BRAID_CUBLAS_STATUS(cublasLtMatrixLayoutCreate(&lc, type, uint64_t(m.n), uint64_t(m.m), m.ldc));
    if (st.ok()) st = BRAID_CUBLAS_STATUS(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws_bytes = kWorkspaceBytes;
    if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                    &ws_bytes, sizeof ws_bytes));
    }
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(cublasLtMatmulAlgoGetHeuristic(handle_, desc, la, lb, lc, lc, pref, 1, &heur, &found));
    }
    if (st.ok() && found == 0) st = Status::Internal("cuBLASLt found no algorithm for this GEMM");
    const float alpha = 1.0f, beta = 0.0f;
    if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(cublasLtMatmul(handle_, desc, &alpha, m.b, la, m.a, lb, &beta, m.c, lc, m.c, lc,
                                              &heur.algo, ws, kWorkspaceBytes, reinterpret_cast<cudaStream_t>(s)));
    }
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (desc) cublasLtMatmulDescDestroy(desc);
    return st;
  }

 private:
  Status Workspace(GpuStream s, void*& ws) {
    auto it = workspace_.find(s);
    if (it != workspace_.end()) {
      ws = it->second;
      return Status::Ok();
    }
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaMalloc(&ws, kWorkspaceBytes)));
    workspace_[s] = ws;
    return Status::Ok();
  }

  cublasLtHandle_t handle_ = nullptr;
  std::map<GpuStream, void*> workspace_;
};

}  // namespace

Result<std::unique_ptr<BlasLtApi>> MakeRealBlasLt() {
  auto blas = std::make_unique<RealBlasLt>();
  BRAID_RETURN_IF_ERROR(blas->Init());
  return std::unique_ptr<BlasLtApi>(std::move(blas));
}

}  // namespace braid::cuda
