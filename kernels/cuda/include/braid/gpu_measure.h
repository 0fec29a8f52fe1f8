// `braid calibrate --measure`: measures this machine's GPU in the CSV layout
// of docs/simulator.md ("A board's measurements") and fits a GPU file to
// it with the simulator's fit (braid/sim_fit.h). It also runs the fused
// P2P+GEMM kernel in its two halves — its GEMM tiles alone and its comm
// CTAs' pulls alone — either the task kernel (kernels/cuda/fused) or the
// GEMM core with its pull kernel (kernels/cuda/gemm, MeasurePlan::
// fused_engine), and writes fused_kernel.csv, from which the fit sets the
// GPU file's fused_gemm_efficiency and fused_sm_transfer_gbs.
//
// The device work goes through one seam, MeasureDevice: a real one on the
// CUDA runtime and cuBLASLt (OpenRealMeasureDevice, only in a CUDA build) and
// a model-driven fake (braid/gpu_measure_fake.h), so the plan, the
// warmup / median loop, the CSV files and the fit are tested on the host.
//
// Every measurement is a number of warmup samples (thrown away) and timed
// samples; the median of the timed ones is kept. A sample is timed by the
// device with CUDA events around the work (launch gaps: the GPU's global
// timer read inside two kernels).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "braid/core_schedule.h"
#include "braid/fused_engine.h"
#include "braid/fused_schedule.h"
#include "braid/gpu_files.h"
#include "braid/sim_fit.h"
#include "braid/sim_measured.h"
#include "braid/status.h"
#include "gemm/gemm_plan.h"

namespace braid::measure {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};

enum class Holder { kSpin, kCopy };     // a spinning SM holder, or one copying 64 MiB in a loop
enum class Launcher { kHost, kGraph };  // kernels launched one by one from C++, or replayed from a CUDA graph
enum class Gap { kSameStream, kCrossStreamEvent };
// The fused kernel's halves: its GEMM tiles with the comm CTAs idle, or its
// comm CTAs pulling peers' rows of A with no GEMM tile running.
enum class FusedPart { kGemm, kTransfer };

// What to measure. DefaultMeasurePlan gives the h100-measured grid.
struct MeasurePlan {
  std::vector<GemmShape> gemm_shapes;  // gemm_bf16.csv
  // gemm_fp8.csv: E4M3 × E4M3 → bf16 GEMMs (cuBLASLt, per-tensor scales), on
  // a device with FP8 tensor cores (MeasureDevice::HasFp8) only.
  std::vector<GemmShape> fp8_gemm_shapes;
  std::vector<GemmShape> held_shapes;  // gemm_beside_held_sms.csv: each × holder × held_sms
  std::vector<int> held_sms;           // 0 first (the GEMM alone in the same run)
  std::vector<int> copy_sms;           // copy_kernel_bw.csv
  int64_t sm_copy_bytes = int64_t{1} << 30;
  int64_t ce_copy_bytes = int64_t{2} << 30;  // copy_engine.csv names the row "2GiB": keep it
  GemmShape ce_gemm{8192, 8192, 8192};
  int gemms_per_sample = 20;  // GEMMs in one CUDA graph; a sample is one replay over this count
  int warmup = 3, iterations = 15;
  int gap_warmup = 20, gap_iterations = 180;  // launch gaps: many cheap samples
  // fused_kernel.csv: each shape × comm-SM budget, as rank 0 of an ag_gemm
  // of fused_ranks ranks whose peers are buffers on this GPU (loopback).
  std::vector<GemmShape> fused_shapes;
  std::vector<int> fused_comm_sms;
  int fused_ranks = 8;
  int fused_kernels_per_sample = 3;  // back-to-back launches per sample
  // Which kernel the fused points time: the task kernel (`--algo fused`'s
  // default) or the GEMM core (`--fused-engine core`), whose rate the sim's
  // fused figures then describe.
  FusedEngine fused_engine = FusedEngine::kTasks;
  // gemm_kernels.csv: the kernels one GEMM of every bf16 shape above (and
  // every FP8 one, on a device with FP8) launches, as CUPTI records them.
  bool log_kernels = true;
};

// The grid of h100-measured on a device of `sm_count` SMs: the 20 shapes of
// gemm_bf16.csv; 3 shapes beside 0, 4, 8, 16, 24, 32, 48 and sm_count/2 held
// SMs; copies on 1 … 64 and all SMs; the fused kernel on 3 shapes × 2, 8,
// 16, 32 comm SMs. `quick`: 6 shapes, one held shape on 4 counts, 4 copy
// counts, one fused shape on 2 budgets, fewer samples (tests/gpu/run.sh).
// FP8 GEMMs on the same shapes as gemm_bf16.csv (every one a multiple of 16,
// as cuBLASLt's FP8 kernels need).
MeasurePlan DefaultMeasurePlan(int sm_count, bool quick);
// Invalid when a count or size is out of range for a device of `sm_count` SMs.
Status CheckMeasurePlan(const MeasurePlan& plan, int sm_count);

// The fused probe on the GEMM core (MeasurePlan::fused_engine kCore), as
// the cuda backend sets up rank 0 of a fused ag_gemm with pulls by SMs
// (kernels/cuda/host/fused_core_step.cc): the core's plan on the SMs the
// pull kernel leaves and rank 0's pulls of the other ranks' blocks, from
// the proved core schedule.
struct CoreProbe {
  GemmShape shape;
  int comm_ctas = 0, ranks = 0;
  cuda::gemm::GemmPlan gemm;                 // the GEMM half: bf16 m x n x k, grid <= SMs - comm_ctas
  std::vector<cuda::fused::CorePull> pulls;  // the transfer half, in issue order
  int steps = 0;                             // arrival flags (step 0: rank 0's own block)
  int64_t bytes = 0;                         // what the pulls move
};
// Invalid (one line naming the point and the constraint) where the core or
// its schedule refuses the point: P outside 2..8 or not dividing M, no SM
// left for the GEMM, PlanGemm's shape rules.
Result<CoreProbe> CoreProbeFor(const GemmShape& s, int comm_sms, int ranks, const cuda::gemm::GemmDevice& device);

// The device work of one measurement; every call returns one sample.
// Threading contract: one thread at a time.
class MeasureDevice {
 public:
  virtual ~MeasureDevice() = default;
  virtual std::string Name() const = 0;  // "NVIDIA H100 80GB HBM3"
  virtual int SmCount() const = 0;
  // Allocates buffers for the plan's largest GEMM (4 input sets, rotated so
  // the L2 does not hold them) and copies. Before any sample.
  virtual Status Prepare(const MeasurePlan& plan) = 0;
  // ns per GEMM of a replay of `count` GEMMs captured in one CUDA graph.
  virtual Result<double> GemmNs(const GemmShape& s, int count) = 0;
  // FP8 tensor cores (compute capability 8.9 or newer): Fp8GemmNs works.
  virtual bool HasFp8() const { return false; }
  // GemmNs of E4M3 A and B (B stored transposed, the TN layout), per-tensor
  // scales, bf16 C. Unavailable on a device without FP8.
  virtual Result<double> Fp8GemmNs(const GemmShape& s, int count);
  // The same while `held_sms` SMs are held (one CTA each) by `holder`,
  // started before the GEMMs and released after them.
  virtual Result<double> GemmBesideHolderNs(const GemmShape& s, int count, Holder holder, int held_sms) = 0;
  // A copy of `bytes` by one CTA per SM on `sms` SMs, 16-byte loads/stores.
  virtual Result<double> SmCopyNs(int sms, int64_t bytes) = 0;
  // A copy-engine device-to-device copy of `bytes`.
  virtual Result<double> CeCopyNs(int64_t bytes) = 0;
  // One GEMM while a copy-engine copy of `copy_bytes` runs on another stream.
  virtual Result<double> GemmBesideCeCopyNs(const GemmShape& s, int64_t copy_bytes) = 0;
  // Start-to-start gap of two tiny kernels.
  virtual Result<double> LaunchGapNs(Launcher launcher, Gap gap) = 0;
  // The kernels one GEMM of each shape launches (bf16, or E4M3 as Fp8GemmNs
  // runs it), in launch order, from CUPTI's kernel records: cuBLASLt's
  // choice of kernel, grid and clusters. Unavailable where nothing records
  // them (the default; CUPTI refused): the measurement goes on without
  // gemm_kernels.csv.
  virtual Result<std::vector<sim::MeasuredGemmKernel>> GemmKernels(const std::vector<GemmShape>& shapes, bool fp8);
  // ns per kernel of `count` back-to-back launches of the fused kernel
  // running FusedProbeTables(s, comm_sms, ranks, SmCount(), part).
  virtual Result<double> FusedPartNs(const GemmShape& s, int comm_sms, int ranks, FusedPart part, int count) = 0;
  // The GEMM core's kernel for this device (its architecture, all its SMs,
  // its shared-memory opt-in); Unavailable (the default) where there is none.
  virtual Result<cuda::gemm::GemmDevice> CoreDevice() const;
  // ns per launch of `count` back-to-back launches of one half of `probe`
  // (CoreProbeFor on CoreDevice()): kGemm the core's GEMM on probe.gemm's
  // grid with no wait, kTransfer the pull kernel's probe.pulls on
  // probe.comm_ctas CTAs. Unavailable by default.
  virtual Result<double> CoreFusedPartNs(const CoreProbe& probe, FusedPart part, int count);
};

// The fused probe's kernel shape: rank 0 of an ag_gemm of `ranks` ranks on
// all `sm_count` SMs, `comm_sms` of them comm CTAs.
cuda::fused::FusedShape FusedProbeShape(const GemmShape& s, int comm_sms, int ranks, int sm_count);
// The tables of one half, cut from the schedule's own (BuildRankTables):
// kGemm keeps every CTA, empties the comm CTAs' lists and drops the compute
// tiles' waits and flags (their rows are taken as landed); kTransfer keeps
// only the comm CTAs and their pulls, without flags. Invalid (one line) for
// a shape or budget the kernel refuses (CheckFusedShape).
Result<cuda::fused::RankTables> FusedProbeTables(const GemmShape& s, int comm_sms, int ranks, int sm_count,
                                                 FusedPart part);
// Bytes the tables' pulls move (rows × k × 2: bf16).
int64_t FusedPulledBytes(const cuda::fused::RankTables& tables);

struct MeasuredGemmRow {
  GemmShape shape;
  double time_ns = 0;
};
struct MeasuredHeldRow {
  GemmShape shape;
  Holder holder = Holder::kSpin;
  int held_sms = 0;
  double time_ns = 0, alone_ns = 0;  // alone: held_sms 0 of the same holder's run
};
struct MeasuredCopyRow {
  int sms = 0;
  double gbs = 0;  // bytes read + written per ns
};
struct MeasuredFusedRow {  // fused_kernel.csv (braid/sim_measured.h: MeasuredFused)
  GemmShape shape;
  int comm_sms = 0;
  double gemm_ns = 0;  // per kernel, launch gap included
  int64_t bytes = 0;
  double transfer_ns = 0;  // per kernel, launch gap included
  FusedEngine engine = FusedEngine::kTasks;
};

// What one run measured: the rows of the six CSV files.
struct Measurements {
  std::string device;
  int sm_count = 0;
  std::vector<MeasuredGemmRow> gemm;
  std::vector<MeasuredGemmRow> gemm_fp8;  // empty: not measured (no FP8 on the device)
  std::vector<MeasuredHeldRow> held;
  std::vector<MeasuredCopyRow> copy_bw;
  double ce_gemm_alone_ns = 0, ce_gemm_beside_ns = 0, ce_copy_ns = 0, ce_copy_gbs = 0;
  double host_same_stream_ns = 0, host_cross_stream_ns = 0;    // launch_gaps.csv, C++ launcher
  double graph_same_stream_ns = 0, graph_cross_stream_ns = 0;  // ... inside a CUDA graph
  std::vector<MeasuredFusedRow> fused;
  std::vector<sim::MeasuredGemmKernel> kernels;  // gemm_kernels.csv
  std::string kernels_note;                      // why there are none, when the plan asked for them
};

// One stage's progress: after each measurement of it.
struct StageProgress {
  std::string stage;  // the CSV file it fills
  int done = 0, total = 0;
  double elapsed_s = 0;  // since the stage started
};
using ProgressFn = std::function<void(const StageProgress&)>;

// Invalid (one line) unless `device` can run the plan's fused engine on
// every fused point: the GEMM core needs a core kernel for the device
// (CoreDevice) and CoreProbeFor to accept each point. Plans nothing on the
// device; the task kernel's points are CheckMeasurePlan's.
Status CheckFusedEngineOn(const MeasureDevice& device, const MeasurePlan& plan);

// The whole plan on `device` (Prepare first). Stops at the first failed
// sample, naming the stage and the measurement; CheckFusedEngineOn's
// refusal comes before the first.
Result<Measurements> RunMeasurements(MeasureDevice& device, const MeasurePlan& plan, const ProgressFn& progress);

// The median of `iterations` samples after `warmup` discarded ones.
Result<double> MedianOfSamples(const std::function<Result<double>()>& sample, int warmup, int iterations);

// The CSV files' names and bytes: the five of h100-measured (same columns,
// launch_gaps.csv with two more rows for the graph launcher) and, when the
// plan had fused points, fused_kernel.csv (m,n,k,comm_sms,gemm_ms,bytes,transfer_ms);
// gemm_kernels.csv when kernels were logged (braid/sim_measured.h).
std::vector<std::pair<std::string, std::string>> MeasurementCsvFiles(const Measurements& m);
// Writes them into `dir` (an existing folder), each atomically (braid/safe_write.h).
Status WriteMeasurementCsvs(const Measurements& m, const std::string& dir);

// The fit of `base` to the CSVs in `dir`, read back with ReadMeasuredBoard
// (a GPU file for this device: its SM count and name). The GPU file's text
// with a header naming the device is in `toml`.
struct MeasuredFit {
  sim::GpuFit fit;
  std::string toml;
};
Result<MeasuredFit> FitMeasuredGpu(const GpuSpec& base, const std::string& dir, const Measurements& m,
                                   const sim::FitOptions& options);

// The check's errors per CSV file (CheckMeasuredBoard lists its rows file
// by file: gemm_bf16, gemm_beside_held_sms, copy_kernel_bw, copy_engine,
// launch_gaps (the graph rows), fused_kernel (two rows per point), gemm_fp8).
struct FileErrors {
  std::string file;
  int rows = 0, off = 0;  // off: rows outside their tolerance
  double mean_abs_pct = 0, max_abs_pct = 0;
};
std::vector<FileErrors> ErrorsByFile(const sim::MeasuredCheck& check, const Measurements& m);

// The real device (CUDA runtime + cuBLASLt, kernels/cuda/measure/*.cu);
// Unavailable without a usable device or in a build without CUDA.
Result<std::unique_ptr<MeasureDevice>> OpenRealMeasureDevice(int device);

}  // namespace braid::measure
