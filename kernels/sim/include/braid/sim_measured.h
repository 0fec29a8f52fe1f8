// Measurements of one board in the CSV layout of docs/simulator.md
// ("A board's measurements"): what `braid calibrate
// --check` compares the models with and `--fit` fits a GPU file to. Any
// subset of the five files (and fused_kernel.csv) may be present; none at all
// is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/status.h"

namespace braid::sim {

struct MeasuredGemm {  // gemm_bf16.csv, gemm_fp8.csv (same columns: m,n,k,time_ms)
  int64_t m = 0, n = 0, k = 0;
  double time_ns = 0;
};

struct MeasuredHeldGemm {  // gemm_beside_held_sms.csv
  int64_t m = 0, n = 0, k = 0;
  bool copying = false;  // holder: copy (true) or spin
  int held_sms = 0;
  double time_ns = 0, alone_ns = 0;
};

struct MeasuredCopyBw {  // copy_kernel_bw.csv
  int sms = 0;
  double gbs = 0;  // bytes read + written per ns
};

struct MeasuredCopyEngine {  // copy_engine.csv (all four rows)
  bool present = false;
  double gemm_alone_ns = 0, gemm_beside_ns = 0, copy_ns = 0, copy_gbs = 0;
};

// launch_gaps.csv. The first two rows come from a host launcher (Python for
// h100-measured, C++ for `calibrate --measure`) and include its launch cost;
// `calibrate --measure` adds the same two gaps inside a CUDA graph
// (graph_same_stream_start_to_start, graph_cross_stream_event_wait_start_to_start),
// which the device alone sets.
struct MeasuredLaunch {
  bool present = false;
  double same_stream_ns = 0, cross_stream_ns = 0;
  double graph_same_stream_ns = 0, graph_cross_stream_ns = 0;  // 0: not measured
  bool graph() const { return graph_same_stream_ns > 0 && graph_cross_stream_ns > 0; }
};

// fused_kernel.csv (written by `calibrate --measure` on the cuda backend):
//   m,n,k,comm_sms,gemm_ms,bytes,transfer_ms[,engine]
// gemm_ms: the fused kernel's GEMM tiles alone (its comm CTAs idle) on the
// sm_count − comm_sms SMs they get; transfer_ms: its comm_sms CTAs moving
// `bytes` to the peers with no GEMM tiles running. Both per kernel, one
// launch gap (the GPU file's launch_us) included. Use comm-SM counts below
// the link's saturation: the fit reads the per-CTA rate from them.
struct MeasuredFused {
  int64_t m = 0, n = 0, k = 0;
  int comm_sms = 0;
  double gemm_ns = 0;
  int64_t bytes = 0;
  double transfer_ns = 0;
  // The kernel the halves were timed on: "tasks" (the task kernel) or
  // "core" (the GEMM core); the optional `engine` column, "tasks" without it.
  std::string engine = "tasks";
};

// gemm_kernels.csv (`calibrate --measure` on the cuda backend, from CUPTI's
// kernel records):
//   m,n,k,dtype,kernel,grid_ctas,cluster_ctas,max_active_clusters,block_threads,registers,shared_bytes
// one row per kernel one GEMM of the shape launched (cuBLASLt's choice: its
// kernel, grid and clusters), dtype bf16 or fp8_e4m3. It times nothing: it is
// what the sim's kernel choice (tile, grid, waves) is set beside
// (CompareKernelChoice, braid/sim_kernel_log.h).
struct MeasuredGemmKernel {
  int64_t m = 0, n = 0, k = 0;
  bool fp8 = false;
  std::string kernel;           // one line, at most kMaxKernelNameBytes, no commas
  int64_t grid_ctas = 0;        // gridX · gridY · gridZ
  int cluster_ctas = 1;         // CTAs per cluster (1: launched without clusters)
  int max_active_clusters = 0;  // CUPTI's figure for the launch (0: not reported)
  int block_threads = 0, registers = 0;
  int64_t shared_bytes = 0;
};
inline constexpr size_t kMaxKernelNameBytes = 512;

struct MeasuredBoard {
  std::string dir;
  std::vector<MeasuredGemm> gemm;
  // gemm_fp8.csv (`calibrate --measure` on a GPU with FP8 tensor cores):
  // E4M3 × E4M3 → bf16 GEMMs, every dimension a multiple of 16.
  std::vector<MeasuredGemm> gemm_fp8;
  std::vector<MeasuredHeldGemm> held;
  std::vector<MeasuredCopyBw> copy_bw;
  MeasuredCopyEngine copy_engine;
  MeasuredLaunch launch;
  std::vector<MeasuredFused> fused;
  std::vector<MeasuredGemmKernel> kernels;  // gemm_kernels.csv
};

// "4096x8192x1024": a GEMM's shape in messages and check rows.
std::string GemmShapeText(int64_t m, int64_t n, int64_t k);

// The measurement files a board's folder may hold, in the order read.
const std::vector<std::string>& MeasuredFileNames();

// Adds the rows of one measurement file (`name`, one of MeasuredFileNames(),
// with contents `text`) to `board`. Invalid, with file:line and column, for
// what no measurement can be: a NUL byte, a row with more fields than the
// header, a header with no rows, a missing column, a time or size that is not
// positive, a GEMM faster than 3x the GPU file's peak or a copy faster than
// 3x its memory bandwidth, two rows of one shape whose figures differ by
// more than 2x, an unknown or repeated row of a what,value table, an FP8 GEMM
// dimension that is not a multiple of 16, or a held-SM or comm-SM count
// outside [0, gpu.sm_count) (comm_sms: [1, gpu.sm_count)).
Status ReadMeasuredFile(const std::string& name, std::string_view text, const GpuSpec& gpu, MeasuredBoard* board);

// Reads the measurement files found in `dir` through the safe reader, each as
// ReadMeasuredFile does; Invalid for a folder with none of them.
Result<MeasuredBoard> ReadMeasuredBoard(const std::string& dir, const GpuSpec& gpu);

}  // namespace braid::sim
