// BlasLtApi forwarded to cuBLASLt. Row-major C = A·B is computed as the
// column-major Cᵀ = Bᵀ·Aᵀ (no transposes, operands swapped; FP8 takes B
// stored transposed, see blaslt_api.h). One handle per
// rank; one workspace per stream, so concurrent GEMM lanes never share one;
// the descriptor, layouts and heuristic's algorithm made once per MatmulKey.
// cuBLASLt is reached through the table of real/cublaslt_library.h, opened
// when the first handle is made.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <map>

#include "cuda_check.h"
#include "real/cublaslt_library.h"
#include "real/real_seams.h"
#include "real/runtime_stream.h"

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
    for (auto& [key, prepared] : prepared_) Destroy(prepared);
    for (auto& [stream, ws] : workspace_) (void)cudaFree(ws);
    if (handle_ != nullptr) (void)lt_->destroy(handle_);
  }
  Status Init() { return BRAID_CUBLAS_STATUS(lt_->create(&handle_)); }

  Status Matmul(const MatmulArgs& m, GpuStream s) override {
    if (m.m == 0 || m.n == 0) return Status::Ok();
    BRAID_RETURN_IF_ERROR(CheckFp8Matmul(m));
    void* ws = nullptr;
    BRAID_RETURN_IF_ERROR(Workspace(s, ws));
    const MatmulKey key = KeyOf(m);
    auto known = prepared_.find(key);
    if (known == prepared_.end()) {
      Prepared p;
      Status st = Prepare(m, p);
      if (!st.ok()) {
        Destroy(p);
        return st;
      }
      known = prepared_.emplace(key, p).first;
    }
    const Prepared& p = known->second;
    // The scales are the call's own (per tensor): set on the shared
    // descriptor each time.
    if (IsFp8(m.dtype)) BRAID_RETURN_IF_ERROR(SetScales(p.desc, m));
    const float alpha = 1.0f, beta = m.accumulate ? 1.0f : 0.0f;
    return BRAID_CUBLAS_STATUS(lt_->matmul(handle_, p.desc, &alpha, m.b, p.la, m.a, p.lb, &beta, m.c, p.lc, m.c, p.lc,
                                           &p.algo, ws, kWorkspaceBytes, RuntimeStream(s)));
  }

 private:
  // What a GEMM of one MatmulKey needs besides its pointers: the descriptor,
  // the three layouts and the heuristic's algorithm, made on its first call
  // and kept (creating and destroying five objects and asking the heuristic
  // cost tens of microseconds of host time per launch, and on an H200 a
  // small training step's GPU waited on its host).
  struct Prepared {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };

  Status Prepare(const MatmulArgs& m, Prepared& p) {
    const bool fp8 = IsFp8(m.dtype);
    const cudaDataType_t type_a = DataType(m.dtype);
    const cudaDataType_t type_b = fp8 ? DataType(m.fp8.b) : type_a;
    const cudaDataType_t type_c = fp8 ? CUDA_R_16BF : type_a;
    const cublasComputeType_t compute =
        m.dtype == DType::kFp32 && m.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    BRAID_RETURN_IF_ERROR(BRAID_CUBLAS_STATUS(lt_->desc_create(&p.desc, compute, CUDA_R_32F)));
    const int32_t sms = m.sm_count_target;
    if (sms > 0) {
      BRAID_RETURN_IF_ERROR(
          BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(p.desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sms, sizeof sms)));
    }
    // Column-major view: "A" = B (n×k, ld ldb), "B" = A (k×m, ld lda), D = Cᵀ (n×m, ld ldc).
    // FP8 ("TN", the only layout Hopper's FP8 kernels take): B is stored as
    // Bᵀ (n×k row-major), which column-major reads as k×n with ld ldb, used
    // transposed; A stays k×m untransposed.
    if (fp8) {
      const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
      BRAID_RETURN_IF_ERROR(
          BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t)));
      BRAID_RETURN_IF_ERROR(
          BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n)));
      // The heuristic is asked with this call's scales set; each later call
      // sets its own before the matmul.
      BRAID_RETURN_IF_ERROR(SetScales(p.desc, m));
      BRAID_RETURN_IF_ERROR(
          BRAID_CUBLAS_STATUS(lt_->layout_create(&p.la, type_b, uint64_t(m.k), uint64_t(m.n), m.ldb)));
    } else {
      BRAID_RETURN_IF_ERROR(
          BRAID_CUBLAS_STATUS(lt_->layout_create(&p.la, type_b, uint64_t(m.n), uint64_t(m.k), m.ldb)));
    }
    BRAID_RETURN_IF_ERROR(BRAID_CUBLAS_STATUS(lt_->layout_create(&p.lb, type_a, uint64_t(m.k), uint64_t(m.m), m.lda)));
    BRAID_RETURN_IF_ERROR(BRAID_CUBLAS_STATUS(lt_->layout_create(&p.lc, type_c, uint64_t(m.n), uint64_t(m.m), m.ldc)));
    cublasLtMatmulPreference_t pref = nullptr;
    Status st = BRAID_CUBLAS_STATUS(lt_->preference_create(&pref));
    const uint64_t ws_bytes = kWorkspaceBytes;
    if (st.ok()) {
      st = BRAID_CUBLAS_STATUS(
          lt_->preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
    }
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    if (st.ok()) {
      st =
          BRAID_CUBLAS_STATUS(lt_->algo_get_heuristic(handle_, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, &heur, &found));
    }
    if (st.ok() && found == 0) st = Status::Internal("cuBLASLt found no algorithm for this GEMM");
    if (st.ok()) p.algo = heur.algo;
    if (pref) lt_->preference_destroy(pref);
    return st;
  }

  // "A" is our B, "B" our A: the scales follow the operands.
  Status SetScales(cublasLtMatmulDesc_t desc, const MatmulArgs& m) {
    const void* sa = m.fp8.b_scale;
    const void* sb = m.fp8.a_scale;
    BRAID_RETURN_IF_ERROR(
        BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa)));
    return BRAID_CUBLAS_STATUS(lt_->desc_set_attribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
  }

  void Destroy(Prepared& p) {
    if (p.lc) lt_->layout_destroy(p.lc);
    if (p.lb) lt_->layout_destroy(p.lb);
    if (p.la) lt_->layout_destroy(p.la);
    if (p.desc) lt_->desc_destroy(p.desc);
    p = Prepared{};
  }

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
  std::map<MatmulKey, Prepared> prepared_;
};

}  // namespace

Result<std::unique_ptr<BlasLtApi>> MakeRealBlasLt() {
  BRAID_ASSIGN_OR_RETURN(const CublasLtLibrary* lt, LoadCublasLt());
  auto blas = std::make_unique<RealBlasLt>(lt);
  BRAID_RETURN_IF_ERROR(blas->Init());
  return std::unique_ptr<BlasLtApi>(std::move(blas));
}

}  // namespace braid::cuda
