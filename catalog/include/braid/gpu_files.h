// GPU hardware files (TOML, catalog/hardware/*.toml): the figures the sim
// backend's models use, each with its public source. The shipped files are
// compiled in, so `--gpu h100-sxm` works from any directory; a path loads a
// user's own file. calibration_points.toml holds the public measurements the
// models are checked against (`braid calibrate --check`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

// One GEMM kernel cuBLAS may pick: its output tile and the fraction of the
// per-SM bf16 peak its main loop reaches (fp16 / fp32 scale it by
// efficiency_fp16 / efficiency_fp32 over efficiency_bf16).
struct GemmKernel {
  int tile_m = 0, tile_n = 0;
  double efficiency = 0;
};

// The sim's expected relative error on this GPU, by regime: what a user can
// read beside each simulated figure (docs/simulator.md, "Error bands"). A
// GPU file gives any of them in [error_band]; each figure there comes from
// measured rows (braid/sim_error_band.h derives them). One it does not give
// keeps the wide figure below and is marked assumed.
struct GpuErrorBand {
  double gemm = 0.25;          // a GEMM (or another kernel) alone on the GPU
  double gemm_held_sms = 0.5;  // a GEMM while communication holds SMs or HBM beside it
  double loopback = 0.5;       // a whole cuda loopback run (P ranks on this one GPU)
  bool gemm_assumed = true, gemm_held_sms_assumed = true, loopback_assumed = true;
  std::string source = "assumed: the GPU file has no [error_band]";
  bool any_measured() const { return !gemm_assumed || !gemm_held_sms_assumed || !loopback_assumed; }
};

struct GpuSpec {
  std::string name;
  int sm_count = 0;
  double tflops_bf16 = 0, tflops_fp16 = 0, tflops_fp32 = 0;              // dense peak; fp32 runs as TF32
  double hbm_gbs = 0;                                                    // memory bandwidth, GB/s
  double hbm_efficiency = 0;                                             // achievable fraction of hbm_gbs
  int tile_m = 0, tile_n = 0;                                            // GEMM output tile
  double efficiency_bf16 = 0, efficiency_fp16 = 0, efficiency_fp32 = 0;  // per-tile, of peak
  // Dense FP8 peak (e4m3 and e5m2 alike) and its per-tile efficiency; both 0
  // on a GPU without FP8 tensor cores (A100). The kernel model scales by
  // efficiency_fp8 / efficiency_bf16 like the other dtypes.
  double tflops_fp8 = 0, efficiency_fp8 = 0;
  double launch_us = 0;      // gap per kernel launch on a stream
  double event_wait_us = 0;  // gap per cross-stream dependency
  int copy_engines = 0;
  // Kernel-choice model (optional; without [[kernel]] entries the GEMM is
  // one tile_m × tile_n kernel). See braid/sim_models.h GemmCostOf.
  std::vector<GemmKernel> kernels;
  double board_rate = 1.0;       // this board's compute rate relative to the kernel efficiencies
  double tile_overhead_us = 0;   // fixed cost per output tile (prologue, epilogue)
  double stream_k_fixup = 0;     // extra fraction of a tile a stream-K remainder costs
  double split_k_traffic = 0;    // share of split-K's fp32 partials that go through HBM
  double sm_boost_exponent = 0;  // power-limited clocks: rate per SM × (sm_count / busy)^x
  double sm_boost_cap = 1.0;     // ... at most this factor
  double sm_copy_gbs = 0;        // one SM's copy bandwidth (read + write); 0 = unlimited
  double l2_miss = 0;            // share of a GEMM's tile re-reads that reach HBM
  double hbm_copy_weight = 1.0;  // an SM copy's weight against a GEMM when HBM is oversubscribed
  double hbm_ce_weight = 1.0;    // a copy-engine copy's weight, likewise
  // The share of the HBM rate (read + write) that every rank's device copies
  // reach together in a cuda loopback run (P ranks on this one GPU, many
  // smaller copies behind stream-ordered flags; braid/sim_loopback.h). 1.0 =
  // the rate one large copy-engine copy reaches.
  double loopback_copy_efficiency = 1.0;
  // In such a run, the share of a device copy's or memory kernel's time that
  // the GEMMs running beside it on the one GPU hide (sim_engine.cc
  // UpdateHbmFactor: while both run they share the GPU's time, each class
  // getting its share plus this much of the other's). 1.0 = fully hidden,
  // they share only HBM; 0 = they run one after the other.
  double loopback_overlap = 1.0;
  // In such a run every rank's thread of the one process makes its host
  // calls (kernel and copy launches, flag writes and waits, event records
  // and waits; sim_loopback.h LoopbackHostCalls) through the one CUDA
  // driver. Each call takes the driver's shared part, loopback_launch_us,
  // in turns with every rank's calls, and the thread's own part,
  // loopback_rank_launch_us (argument packing, cuBLASLt's own work), beside
  // the other threads': a rank's step is launched no sooner than the calls
  // before it × (loopback_rank_launch_us + ranks × loopback_launch_us)
  // (sim_engine_load.cc). 0 and 0 = launches are free, as before: what the
  // 8192 runs show, whose millisecond GEMMs hide them.
  double loopback_launch_us = 0;
  double loopback_rank_launch_us = 0;
  // The fused P2P+GEMM kernel (sim_models.h FusedKernelTime), until measured
  // by `calibrate --measure` (fused_kernel.csv, sim_measured.h):
  double fused_gemm_efficiency = 1.0;  // its GEMM tiles' rate over the chosen cuBLAS-like kernel's, <= 1
  double fused_sm_transfer_gbs = 0;    // GB/s one comm CTA moves to peers; 0 = link Simple rate / NCCL channels
  // GB/s one SM of a comm kernel (an NCCL channel's CTA, a userbuffers
  // CTA) moves to its peers, for a GPU file without sm_copy_gbs (whose
  // fitted copy curve says it otherwise): what makes a collective's or an
  // SM-driven transfer's speed follow the SMs it is given (sim_models.h
  // SmCommGbs); 0 = not limited by SMs.
  double comm_sm_gbs = 0;
  GpuErrorBand error_band;
  std::string source;

  double PeakTflops(DType d) const;
  double Efficiency(DType d) const;
  // Invalid, naming the GPU and what to use instead, when it has no tensor
  // cores for `d` (FP8 on an A100).
  Status CheckSupports(DType d) const;
};

// What a GPU's peak rates may be: from below any GPU Braid models to far
// above the fastest (a B200 is about 2.3 PFLOPS dense bf16 and 8 TB/s), so
// that every time derived from them stays a finite number of ns.
inline constexpr double kMinTflops = 0.1, kMaxTflops = 1e5;
inline constexpr double kMinHbmGbs = 1, kMaxHbmGbs = 1e6;

// Errors say where: "my.toml:7:16: sm_count must be an integer between 1 and 1024".
Result<GpuSpec> ParseGpuToml(std::string_view text, std::string_view origin);

// The GPU file ParseGpuToml reads back to `gpu` (numbers to 6 significant
// digits): what `calibrate --fit` and `--measure` write (gpu_toml_writer.cc).
std::string GpuToml(const GpuSpec& gpu);

// A built-in name, or a path to a .toml file (anything with '/' or ".toml").
// An unknown name lists the known ones.
Result<GpuSpec> LoadGpu(std::string_view name_or_path);

std::vector<std::string> BuiltinGpuNames();

// One public measurement (a row of catalog/hardware/calibration_points.toml, with its source).
struct GemmPoint {
  std::string gpu;
  DType dtype = DType::kBf16;
  int64_t m = 0, n = 0, k = 0;  // all 0 when `best`
  bool best = false;            // "best shape found": compare with the model's best
  double tflops = 0;
  std::string source;
};

struct CollectivePoint {
  std::string topology;
  std::string kind;  // all_reduce | all_gather | reduce_scatter
  int ranks = 0;
  int64_t bytes = 0;
  double busbw_gbs = 0;
  std::string source;
  double tolerance_pct = 10;  // optional in the file: |error| above it fails --check
};

struct CalibrationPoints {
  std::vector<GemmPoint> gemm;
  std::vector<CollectivePoint> collective;
};

Result<CalibrationPoints> ParseCalibrationToml(std::string_view text, std::string_view origin);
// The shipped catalog/hardware/calibration_points.toml.
Result<CalibrationPoints> BuiltinCalibrationPoints();

}  // namespace braid
