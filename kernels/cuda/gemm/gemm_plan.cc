#include "gemm/gemm_plan.h"

#include <string>

namespace braid::cuda::gemm {

namespace {

constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;

Status CheckDim(const char* name, int64_t v) {
  if (v >= 1 && v <= kMaxDim) return Status::Ok();
  return Status::Invalid(std::string("GEMM ") + name + " = " + std::to_string(v) +
                         " is outside 1..2^31-1 (the kernels index with 32-bit integers)");
}

// `per16`: elements per 16 bytes (8 of 2 bytes, 16 of FP8's one byte).
Status CheckAligned(const char* name, int64_t v, const char* why, int64_t per16 = 8) {
  if (v % per16 == 0) return Status::Ok();
  return Status::Invalid(std::string("GEMM ") + name + " = " + std::to_string(v) + " is not a multiple of " +
                         std::to_string(per16) + " elements: " + why);
}

Status CheckLeading(const char* name, int64_t ld, int64_t row, const char* row_name, int64_t per16 = 8) {
  if (ld < row)
    return Status::Invalid(std::string("GEMM ") + name + " = " + std::to_string(ld) + " is shorter than a row (" +
                           row_name + " = " + std::to_string(row) + ")");
  return CheckAligned(name, ld, "every row must start on a 16-byte boundary for 16-byte copies", per16);
}

// FP8 E4M3 (sm_90a): a m × k and bᵀ n × k in one-byte elements, K-major
// both (FP8 wgmma reads no transposed operand), c bf16.
Status CheckFp8(GemmProblem& p, const GemmDevice& device) {
  if (device.arch != GemmArch::kSm90a)
    return Status::Invalid(std::string("GEMM dtype fp8_e4m3 on ") + GemmArchName(device.arch) +
                           ": the GEMM core's FP8 path is sm_90a's wgmma (e4m3); no sm_80 kernel takes FP8");
  BRAID_RETURN_IF_ERROR(CheckAligned(
      "k", p.k, "FP8 rows of A and B^T are read in 16-byte TMA boxes that must not straddle their edge", 16));
  BRAID_RETURN_IF_ERROR(CheckAligned("n", p.n, "C's bf16 rows are written in 16-byte pieces"));
  if (p.lda == 0) p.lda = p.k;
  if (p.ldb == 0) p.ldb = p.k;  // B^T: n rows of k
  if (p.ldc == 0) p.ldc = p.n;
  BRAID_RETURN_IF_ERROR(CheckLeading("lda", p.lda, p.k, "k", 16));
  BRAID_RETURN_IF_ERROR(CheckLeading("ldb", p.ldb, p.k, "k (FP8 B is stored as B^T, n x k)", 16));
  return CheckLeading("ldc", p.ldc, p.n, "n");
}

}  // namespace

Result<GemmPlan> PlanGemm(const GemmProblem& problem, const GemmDevice& device) {
  GemmPlan plan;
  plan.problem = problem;
  GemmProblem& p = plan.problem;
  const bool fp8 = p.dtype == DType::kFp8E4m3;
  if (p.dtype != DType::kBf16 && p.dtype != DType::kFp16 && !fp8)
    return Status::Invalid("GEMM dtype " + std::string(DTypeName(p.dtype)) +
                           ": the GEMM core takes bf16 or fp16 (mma/wgmma with fp32 accumulation), or fp8_e4m3 "
                           "on sm_90a");
  BRAID_RETURN_IF_ERROR(CheckDim("m", p.m));
  BRAID_RETURN_IF_ERROR(CheckDim("n", p.n));
  BRAID_RETURN_IF_ERROR(CheckDim("k", p.k));
  if (fp8) {
    BRAID_RETURN_IF_ERROR(CheckFp8(p, device));
  } else {
    BRAID_RETURN_IF_ERROR(
        CheckAligned("k", p.k, "A's rows are read in 16-byte copies (cp.async, TMA) that must not straddle its edge"));
    BRAID_RETURN_IF_ERROR(CheckAligned(
        "n", p.n, "B's rows are read and C's written in 16-byte pieces that must not straddle their edge"));
    if (p.lda == 0) p.lda = p.k;
    if (p.ldb == 0) p.ldb = p.n;
    if (p.ldc == 0) p.ldc = p.n;
    BRAID_RETURN_IF_ERROR(CheckLeading("lda", p.lda, p.k, "k"));
    BRAID_RETURN_IF_ERROR(CheckLeading("ldb", p.ldb, p.n, "n"));
    BRAID_RETURN_IF_ERROR(CheckLeading("ldc", p.ldc, p.n, "n"));
  }
  if (device.num_sms < 1) return Status::Unavailable("the device reports " + std::to_string(device.num_sms) + " SMs");

  if (device.tile_n != 0 && device.tile_n != 128 && !(device.tile_n == 256 && device.arch == GemmArch::kSm90a))
    return Status::Invalid("GEMM tile width " + std::to_string(device.tile_n) + " on " + GemmArchName(device.arch) +
                           ": the GEMM core's tiles are 128 wide (and 256 on sm_90a)");
  plan.config = TileConfigFor(device.arch, fp8, device.tile_n == 256);
  BRAID_RETURN_IF_ERROR(CheckSmemBudget(plan.config, device.smem_optin));
  plan.scheduler.m = p.m;
  plan.scheduler.n = p.n;
  plan.scheduler.tile_m = plan.config.tile_m;
  plan.scheduler.tile_n = plan.config.tile_n;
  plan.scheduler.group_m = plan.config.group_m;
  plan.grid = PersistentGrid(plan.scheduler.total(), device.num_sms);
  plan.threads = plan.config.threads;
  plan.smem_bytes = SmemBytes(plan.config);
  if (device.arch == GemmArch::kSm90a) {
    plan.tma_a = TmaParamsA(p.m, p.k, p.lda, plan.config);
    plan.tma_b = fp8 ? TmaParamsBKMajor(p.n, p.k, p.ldb, plan.config) : TmaParamsB(p.k, p.n, p.ldb, plan.config);
    BRAID_RETURN_IF_ERROR(CheckTmaParams(plan.tma_a));
    BRAID_RETURN_IF_ERROR(CheckTmaParams(plan.tma_b));
  }
  return plan;
}

}  // namespace braid::cuda::gemm
