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

Status CheckAligned(const char* name, int64_t v, const char* why) {
  if (v % 8 == 0) return Status::Ok();
  return Status::Invalid(std::string("GEMM ") + name + " = " + std::to_string(v) +
                         " is not a multiple of 8 elements: " + why);
}

Status CheckLeading(const char* name, int64_t ld, int64_t row, const char* row_name) {
  if (ld < row)
    return Status::Invalid(std::string("GEMM ") + name + " = " + std::to_string(ld) + " is shorter than a row (" +
                           row_name + " = " + std::to_string(row) + ")");
  return CheckAligned(name, ld, "every row must start on a 16-byte boundary for 16-byte copies");
}

}  // namespace

Result<GemmPlan> PlanGemm(const GemmProblem& problem, const GemmDevice& device) {
  GemmPlan plan;
  plan.problem = problem;
  GemmProblem& p = plan.problem;
  if (p.dtype != DType::kBf16 && p.dtype != DType::kFp16)
    return Status::Invalid("GEMM dtype " + std::string(DTypeName(p.dtype)) +
                           ": the GEMM core takes bf16 or fp16 (mma/wgmma with fp32 accumulation)");
  BRAID_RETURN_IF_ERROR(CheckDim("m", p.m));
  BRAID_RETURN_IF_ERROR(CheckDim("n", p.n));
  BRAID_RETURN_IF_ERROR(CheckDim("k", p.k));
  BRAID_RETURN_IF_ERROR(
      CheckAligned("k", p.k, "A's rows are read in 16-byte copies (cp.async, TMA) that must not straddle its edge"));
  BRAID_RETURN_IF_ERROR(
      CheckAligned("n", p.n, "B's rows are read and C's written in 16-byte pieces that must not straddle their edge"));
  if (p.lda == 0) p.lda = p.k;
  if (p.ldb == 0) p.ldb = p.n;
  if (p.ldc == 0) p.ldc = p.n;
  BRAID_RETURN_IF_ERROR(CheckLeading("lda", p.lda, p.k, "k"));
  BRAID_RETURN_IF_ERROR(CheckLeading("ldb", p.ldb, p.n, "n"));
  BRAID_RETURN_IF_ERROR(CheckLeading("ldc", p.ldc, p.n, "n"));
  if (device.num_sms < 1) return Status::Unavailable("the device reports " + std::to_string(device.num_sms) + " SMs");

  plan.config = TileConfigFor(device.arch);
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
    plan.tma_b = TmaParamsB(p.k, p.n, p.ldb, plan.config);
    BRAID_RETURN_IF_ERROR(CheckTmaParams(plan.tma_a));
    BRAID_RETURN_IF_ERROR(CheckTmaParams(plan.tma_b));
  }
  return plan;
}

}  // namespace braid::cuda::gemm
