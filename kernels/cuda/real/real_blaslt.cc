// BlasLtApi forwarded to cuBLASLt. Row-major C = A·B is computed as the
// column-major Cᵀ = Bᵀ·Aᵀ (no transposes, operands swapped; FP8 takes B
// stored transposed, see blaslt_api.h). One handle per
// rank; one workspace per stream, so concurrent GEMM lanes never share one;
// the heuristic's algorithm cached per MatmulKey (asked once per shape).
// cuBLASLt is reached through the table of real/cublaslt_library.h, opened
// when the first handle is made.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <map>

#include "cuda_check.h"
#include "real/cublaslt_library.h"
#include "real/real_seams.h"

// `lt_` is the RealBlasLt's table.
#define BRAID_CUBLAS_STATUS(call)                                                                      \
  ([&]() -> ::braid::Status {                                                                          \
    const cublasStatus_t braid_s_ = (call);                                                            \
    if (braid_s_ == CUBLAS_STATUS_SUCCESS) return ::braid::Status::Ok();                               \
    return ::braid::Status::Internal(std::string(#call) + " failed: " + lt_->status_string(braid_s_) + \
                                     " (" BRAID_SOURCE_FILE ":" + std::to_string(__LINE__) + ")");     \
  }())

namespace braid::cuda {

namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

cudaDataType_t DataType(DType d) {
  switch (d) {
    case DType::kFp32:
      return CUDA_R_32F;
    case DType::kFp16:
      return CUDA_R_16F;
    case DType::kFp8E4m3:
      return CUDA_R_8F_E4M3;
    case DType::kFp8E5m2:
      return CUDA_R_8F_E5M2;
    case DType::kBf16:
      break;
  }
  return CUDA_R_16BF;
}

class RealBlasLt : public BlasLtApi {
 public:
  explicit RealBlasLt(const CublasLtLibrary* lt) : lt_(lt) {}
  ~RealBlasLt() override {
    for (auto& [stream, ws] : workspace_) (void)cudaFree(ws);
    if (handle_ != nullptr) (void)lt_->destroy(handle_);
  }
  Status Init() { return BRAID_CUBLAS_STATUS(lt_->create(&handle_)); }

  Status Matmul(const MatmulArgs& m, GpuStream s) override {
    if (m.m == 0 || m.n == 0) return Status::Ok();
    BRAID_RETURN_IF_ERROR(CheckFp8Matmul(m));
    void* ws = nullptr;
    BRAID_RETURN_IF_ERROR(Workspace(s, ws));
    const bool fp8 = IsFp8(m.dtype);
    const cudaDataType_t type_a = DataType(m.dtype);
    const cudaDataType_t type_b = fp8 ? DataType(m.fp8.b) : type_a;
    const cudaDataType_t type_c = fp8 ? CUDA_R_16BF : type_a;
    const cublasComputeType_t compute =
        m.dtype == DType::kFp32 && m.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    Status st = BRAID_CUBLAS_STATUS(lt_->desc_create(&desc, compute, CUDA_R_32F));
    const int32_t sms = m.sm_count_target;
    if (st.ok() && sms > 0) {
      st = BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sms, sizeof sms));
    }
    // Column-major view: "A" = B (n×k, ld ldb), "B" = A (k×m, ld lda), D = Cᵀ (n×m, ld ldc).
    // FP8 ("TN", the only layout Hopper's FP8 kernels take): B is stored as
    // Bᵀ (n×k row-major), which column-major reads as k×n with ld ldb, used
    // transposed; A stays k×m untransposed.
    if (fp8) {
      const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
      if (st.ok()) st = BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
      if (st.ok()) st = BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
      // "A" is our B, "B" our A: the scales follow the operands.
      const void* sa = m.fp8.b_scale;
      const void* sb = m.fp8.a_scale;
      if (st.ok()) {
        st = BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
      }
      if (st.ok()) {
        st = BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
      }
      if (st.ok()) {
        st = BRAID_CUBLAS_STATUS(lt_->layout_create(&la, type_b, uint64_t(m.k), uint64_t(m.n), m.ldb));
      }
    } else if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(lt_->layout_create(&la, type_b, uint64_t(m.n), uint64_t(m.k), m.ldb));
    }
    if (st.ok()) st = BRAID_CUBLAS_STATUS(lt_->layout_create(&lb, type_a, uint64_t(m.k), uint64_t(m.m), m.lda));
    if (st.ok()) st = BRAID_CUBLAS_STATUS(lt_->layout_create(&lc, type_c, uint64_t(m.n), uint64_t(m.m), m.ldc));
    if (st.ok()) st = BRAID_CUBLAS_STATUS(lt_->preference_create(&pref));
    const uint64_t ws_bytes = kWorkspaceBytes;
    if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(
          lt_->preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
    }
    const MatmulKey key = KeyOf(m);
    auto known = algo_.find(key);
    if (st.ok() && known == algo_.end()) {
      cublasLtMatmulHeuristicResult_t heur{};
      int found = 0;
      st = BRAID_CUBLAS_STATUS(lt_->algo_get_heuristic(handle_, desc, la, lb, lc, lc, pref, 1, &heur, &found));
      if (st.ok() && found == 0) st = Status::Internal("cuBLASLt found no algorithm for this GEMM");
      if (st.ok()) known = algo_.emplace(key, heur.algo).first;
    }
    const float alpha = 1.0f, beta = 0.0f;
    if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(lt_->matmul(handle_, desc, &alpha, m.b, la, m.a, lb, &beta, m.c, lc, m.c, lc,
                                           &known->second, ws, kWorkspaceBytes, reinterpret_cast<cudaStream_t>(s)));
    }
    if (pref) lt_->preference_destroy(pref);
    if (lc) lt_->layout_destroy(lc);
    if (lb) lt_->layout_destroy(lb);
    if (la) lt_->layout_destroy(la);
    if (desc) lt_->desc_destroy(desc);
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

  const CublasLtLibrary* lt_;
  cublasLtHandle_t handle_ = nullptr;
  std::map<GpuStream, void*> workspace_;
  // One rank's thread calls Matmul (a rank's lanes are issued in turn), so
  // no lock; a run's shapes are few, so no bound.
  std::map<MatmulKey, cublasLtMatmulAlgo_t> algo_;
};

}  // namespace

Result<std::unique_ptr<BlasLtApi>> MakeRealBlasLt() {
  BRAID_ASSIGN_OR_RETURN(const CublasLtLibrary* lt, LoadCublasLt());
  auto blas = std::make_unique<RealBlasLt>(lt);
  BRAID_RETURN_IF_ERROR(blas->Init());
  return std::unique_ptr<BlasLtApi>(std::move(blas));
}

}  // namespace braid::cuda
