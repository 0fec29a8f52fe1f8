// What `braid calibrate` computes: the models' predictions for one GEMM or
// one collective, and the check of the models against every public figure
// in catalog/hardware/calibration_points.toml.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/plan.h"
#include "braid/sim_models.h"
#include "braid/status.h"
#include "braid/topology.h"

namespace braid::sim {

// "M,N,K" with ParseSize suffixes ("8K,8K,4096"); errors name `flag`.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};
Result<GemmShape> ParseGemmShape(std::string_view text, std::string_view flag);

struct GemmPrediction {
  double time_ns = 0;
  double tflops = 0;
};

GemmPrediction PredictGemm(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype);

// What holds SMs beside a GEMM: a spinning kernel, or one copying through
// HBM in a loop.
enum class SmHolder { kSpin, kCopy };
// "spin" | "copy"; Invalid naming the field `holder`.
Result<SmHolder> ParseSmHolder(std::string_view name);
std::string_view SmHolderName(SmHolder holder);
// Invalid (naming `held_sms` and the GPU's SM count) unless
// 0 <= held_sms < gpu.sm_count.
Status CheckHeldSms(const GpuSpec& gpu, int held_sms);
// PredictGemm beside `held_sms` SMs held by `holder` (GemmBesideHeldSmsNs);
// the GEMM alone when held_sms is 0. @pre CheckHeldSms(gpu, held_sms).ok()
GemmPrediction PredictGemmBesideHeldSms(const GpuSpec& gpu, const GemmShape& shape, DType dtype, int held_sms,
                                        SmHolder holder);
// The model's best over a grid of shapes (M, N multiples of 1024 up to 16K,
// K of 4K, 8K, 16K), for "best shape found" figures.
GemmPrediction BestGemm(const GpuSpec& gpu, DType dtype);

struct CollectivePrediction {
  double time_ns = 0;
  double algbw_gbps = 0;                        // bytes / time
  double busbw_gbps = 0;                        // algbw × BusBwFactor
  CollectiveAlgo algo = CollectiveAlgo::kRing;  // what NCCL would run (ChooseCollective)
  int sms = 0;                                  // the SMs its kernels hold (CollectiveSms)
};

// @pre ranks >= 2, bytes >= 1
CollectivePrediction PredictCollective(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);

// The ranks of a collective on `topo`: `tp`, or every GPU of it when tp is
// -1; Invalid (naming `tp`) below 2 or when they do not fit on it.
Result<int> CollectiveRanks(const Topology& topo, int tp);

// "all_reduce" | "all_gather" | "reduce_scatter": core's, beside CollectiveName.
using braid::ParseCollectiveKind;

struct CheckRow {
  std::string what;  // "h100-sxm bf16 gemm 8192x8192x8192 TFLOP/s"
  double measured = 0;
  double predicted = 0;
  double error_pct = 0;  // (predicted − measured) / measured × 100
  std::string source;
  double tolerance_pct = 10;  // |error_pct| above it fails the check
  bool ok() const { return error_pct <= tolerance_pct && error_pct >= -tolerance_pct; }
};

// Model vs every point of the shipped calibration_points.toml.
Result<std::vector<CheckRow>> CheckCalibration();
// The rows as an aligned text table (what, measured, predicted, error %,
// tolerance, and "OFF" for a row outside it).
std::string FormatCheckTable(const std::vector<CheckRow>& rows);

}  // namespace braid::sim
