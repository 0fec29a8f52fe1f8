// The GEMM / memory models against one board's measurements
// (braid/sim_measured.h): the check `braid calibrate --check` prints for
// them, and the fit `braid calibrate --fit` turns them into a GPU file.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/sim_calibration.h"
#include "braid/sim_measured.h"
#include "braid/status.h"

namespace braid::sim {

// Tolerances of the measured rows (docs/simulator.md, "A board's measurements":
// the board itself varies ≈ 10 % between runs).
constexpr double kGemmTolerancePct = 12;        // each gemm_bf16 shape
constexpr double kGemmMeanTolerancePct = 6;     // their mean |error|
constexpr double kHeldTolerancePct = 15;        // gemm_beside_held_sms rows
constexpr double kBandwidthTolerancePct = 10;   // copy_kernel_bw, the copy engine's own rate
constexpr double kContentionTolerancePct = 15;  // the GEMM beside a copy-engine copy
constexpr double kLaunchTolerancePct = 20;      // launch_gaps' graph rows
constexpr double kFusedTolerancePct = 15;       // fused_kernel's GEMM and transfer halves

struct MeasuredCheck {
  std::vector<CheckRow> rows;
  // Every row is predicted at this board's own board_rate: the GPU file's,
  // scaled until the gemm_bf16 rows' geometric-mean error is 0 (the file's
  // own without gemm_bf16 rows). gemm_beside_held_sms and copy_engine rows
  // also take each run's own alone time as the reference. Rows in file
  // order: gemm_bf16, gemm_beside_held_sms, copy_kernel_bw, copy_engine (2),
  // launch_gaps (2, only with its graph rows: launch_us and launch_us +
  // event_wait_us), fused_kernel (2 per row: launch + the GEMM half on the
  // SMs left at fused_gemm_efficiency; launch + bytes at comm_sms ×
  // fused_sm_transfer_gbs, capped like the sim by what those SMs copy),
  // gemm_fp8 (only where the file has tflops_fp8: E4M3 GEMMs at the same
  // board rate, each within kGemmTolerancePct).
  double board_rate = 1;
  double gemm_mean_abs_pct = 0;  // mean |error| of the gemm_bf16 rows
  bool ok() const;               // every row within its tolerance, mean within 6 %
};

MeasuredCheck CheckMeasuredBoard(const GpuSpec& gpu, const MeasuredBoard& board);

struct FittedParameter {
  std::string name;
  double before = 0, after = 0;
};

struct GpuFit {
  GpuSpec gpu;
  MeasuredCheck before, after;
  std::vector<FittedParameter> parameters;
};

// Fits the kernel-choice model's figures (kernel efficiencies, board rate,
// tile overhead, stream-K fixup, clock boost, HBM efficiency, per-SM copy
// bandwidth, L2 misses, copy weight) to the measurements by a deterministic
// random search from `base` (a base without [[kernel]] entries starts from
// the 128×256, 128×128, 64×256 and 64×128 tiles at its bf16 efficiency).
// keep_board_rate: scale board_rate so the 8192³ bf16 GEMM keeps base's
// rate (a file for the boards base was calibrated to, with this board's
// shape trends). The result's source says it was fitted. With
// fused_kernel.csv it also sets fused_gemm_efficiency and
// fused_sm_transfer_gbs from those rows (see MeasuredFused), each row's
// launch gap taken off first. With gemm_fp8.csv it fits efficiency_fp8 (and
// sets tflops_fp8 to twice tflops_bf16 where base has none) so that the FP8
// rows' geometric-mean error is 0 on the fitted GEMM model.
// launch_gaps.csv: host-launched gaps hold the launcher's own cost, which a
// running plan hides (the host queues ahead while the GPU works), so they
// only bound the figures: launch_us is searched below the same-stream gap
// and event_wait_us is at most the cross-stream gap's excess. Its graph rows
// hold no host cost: they set launch_us (the same-stream gap, no longer
// searched) and event_wait_us (the cross-stream gap's excess) outright.
struct FitOptions {
  bool keep_board_rate = false;
  int chains = 4;          // independent searches from base; the best wins
  int iterations = 20000;  // per chain
  // Called now and then with the fraction of the search done (0..1), for a
  // progress line; unset: silent.
  std::function<void(double fraction)> progress;
};
GpuFit FitGpuToMeasurements(const GpuSpec& base, const MeasuredBoard& board, const FitOptions& options);

// The GPU file of a fit from the GPU `base_name`: `header` (comment lines,
// each "# ...\n"), a comment naming the fitted parameters, then
// GpuToml(fit.gpu). Internal when it does not read back as a GPU file.
Result<std::string> FittedGpuFile(const GpuFit& fit, std::string_view header, std::string_view base_name);

}  // namespace braid::sim
