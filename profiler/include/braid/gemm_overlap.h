// Per GEMM of a trace: the communication that belongs to it, how much of it
// ran under the GEMM, the overlap method the trace shows and a verdict
// (`braid report --by-gemm`). Works on any run's events; meant for imported
// traces, whose kernels keep their names.
//
// A GEMM here is a group of GEMM kernels on one rank and iteration, in start
// order, that no other computation separates: the chunks of one overlapped
// GEMM (TE's ring_exchange and pipeline, async-TP's shards, Braid's own
// chunks) are one GEMM; a change of kernel name, or a non-GEMM compute
// kernel longer than kSplitNs between two GEMM kernels (attention, an
// activation), starts the next. Casts and copies shorter than that do not.
//
// Each communication event (ClassifyComm, or an event of kind kComm) goes to
// the GEMM it overlaps most, else to the nearest GEMM before or after it
// (a serial all-gather precedes its GEMM, a serial reduce-scatter follows
// it). A GEMM's figures: gemm_ns = |union of its kernels|, comm_ns = |union
// of its communication|, overlapped_ns = |comm ∩ its kernels|, exposed =
// comm − overlapped.
//
// Method, from what ran (not from timing, so a configured overlap that did
// not fire still says what was configured):
//   async_tp   PyTorch symmetric-memory kernels, or copy-engine peer copies
//              beside two or more GEMM chunks
//   ring       TE userbuffers point-to-point kernels (ring_exchange)
//   pipeline   collective kernels (userbuffers or NCCL) interleaved with two
//              or more GEMM chunks
//   bulk       one GEMM kernel with a whole collective beside it
//   none       no communication, or a plain library's (NCCL) that ran beside
//              the GEMM for less than a tenth of it: TE's and PyTorch's
//              kernels say an overlap was configured, fired or not; NCCL's
//              say so only where they ran beside the GEMM
// Verdict: overlapped (≥ 90 % of its comm under the GEMM), partly (≥ 10 %),
// not_overlapped_although_configured (< 10 % while the method is an overlap
// method), not_overlapped (< 10 %, plain collective), no_comm.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/comm_kernels.h"
#include "braid/event.h"
#include "braid/trace_lane.h"

namespace braid {

enum class OverlapMethod { kNone, kBulk, kPipeline, kRing, kAsyncTp };
enum class GemmVerdict { kOverlapped, kPartly, kNotOverlappedAlthoughConfigured, kNotOverlapped, kNoComm };

std::string_view OverlapMethodName(OverlapMethod m);  // "none", "bulk", "pipeline", "ring", "async_tp"
std::string_view GemmVerdictName(GemmVerdict v);      // "overlapped", ..., "no_comm"

// A non-GEMM compute kernel at least this long between two GEMM kernels
// starts a new GEMM.
inline constexpr int64_t kSplitNs = 20'000;

struct GemmOverlapRow {
  int rank = 0;
  int iteration = 0;
  int index = 0;             // the GEMM's position on its rank in its iteration
  std::string kernel;        // its first kernel's name
  std::string label;         // the innermost named range around it ("" when none)
  std::string op;            // the innermost GEMM op (cpu op) that launched it, with its dims ("" when none)
  std::string key;           // its ub_cfgs key (braid/gemm_keys.h), "" when not mapped
  std::string key_source;    // "te_nvtx" | "megatron_nvtx" | "shape" | ""
  std::string unmapped_why;  // why it has no key (ExplainUnmapped, AssignKeysByShape)
  int kernels = 0;           // GEMM kernels in it (chunks)
  int64_t start_ns = 0;      // first kernel's start
  int64_t end_ns = 0;        // last kernel's end
  int64_t gemm_ns = 0;
  int64_t comm_ns = 0;
  int64_t overlapped_ns = 0;
  int64_t exposed_ns = 0;
  int64_t span_ns = 0;                 // first kernel or comm start to last end: the op as a whole
  std::vector<CommLibrary> libraries;  // of its comm, each once, in table order
  std::vector<CommPattern> patterns;   // likewise
  OverlapMethod method = OverlapMethod::kNone;
  GemmVerdict verdict = GemmVerdict::kNoComm;
};

struct GemmOverlapReport {
  std::vector<GemmOverlapRow> rows;  // by rank, iteration, index
  int64_t comm_events = 0;           // communication events seen
  int64_t unassigned_comm = 0;       // of them, on a rank and iteration with no GEMM
};

// The lanes whose markers label GEMMs, by the importers' lane names: named
// host ranges (Nsight Systems NVTX) hold a kernel by the start of its launch
// call (the runtime lane's marker with its correlation id); GPU-clock ranges
// (Kineto's gpu_user_annotation, record_function on the GPU timeline) by
// the kernel's own time. The innermost range wins.
inline constexpr std::string_view kRuntimeLaneName = "cpu runtime";
inline constexpr std::string_view kNvtxLaneName = "nvtx";
inline constexpr std::string_view kGpuRangeLaneName = "gpu annotations";
// PyTorch's GEMM ops with their Input Dims (Kineto's cpu_op events): host
// ranges like NVTX's, kept apart as the GEMM's op (braid/gemm_keys.h).
inline constexpr std::string_view kCpuOpLaneName = "cpu ops";

// `events`: a run's events, any ranks and order; `lanes`: its lanes (those
// named above label GEMMs; others are ignored). Each row's key comes from
// its label (GemmKeyOfLabel) where the label names one.
GemmOverlapReport AnalyzeGemmOverlap(const std::vector<Event>& events, const std::vector<TraceLane>& lanes = {});

}  // namespace braid
