// Everything one rank's thread holds while it runs a plan on its device:
// the seams, its buffers, streams, events and communicator, and the peers'
// addresses the flags transport writes to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "braid/blaslt_api.h"
#include "braid/bootstrap.h"
#include "braid/cuda_api.h"
#include "braid/fused_kernel_api.h"
#include "braid/gemm_core_api.h"
#include "braid/gpu_tracer.h"
#include "braid/nccl_api.h"
#include "braid/plan.h"
#include "braid/tile_group_events.h"
#include "buffer_dtypes.h"
#include "gemm/row_pull.h"
#include "transfer_layout.h"

namespace braid::cuda {

enum class Transport {
  kNone,   // P = 1: nothing moves
  kNccl,   // NCCL send/recv and collectives
  kFlags,  // copy-engine copies into peer inboxes + stream-ordered flags
};

struct RankSeams {
  CudaApi* cuda = nullptr;
  NcclApi* nccl = nullptr;
  BlasLtApi* blas = nullptr;
  GpuTracer* tracer = nullptr;
  Bootstrap* boot = nullptr;
  FusedKernelApi* fused = nullptr;
  GemmCoreApi* core = nullptr;
};

// One fused step on the GEMM core on this rank (fused_core_step.h).
struct CoreStepState {
  int step = -1;
  GpuStream comm = nullptr;   // the pulls and their flag writes (gemm_rs: the reduce)
  GpuEvent start = nullptr;   // on the lane: the pulls start after what precedes the step
  GpuEvent pulled = nullptr;  // on comm: the lane's later work waits for every pull (or the reduce)
  struct Pull {
    DevPtr dst = nullptr, src = nullptr;
    size_t bytes = 0;  // contiguous rows of A
    int flag = 0;      // the arrival step it completes
  };
  std::vector<Pull> pulls;  // ag_gemm
  DevPtr flags = nullptr;   // ag_gemm: one uint32 per arrival step
  uint32_t* timed_out = nullptr;
  std::vector<int> source_of_flag;  // per arrival step: the rank whose block it brings (the timeout's line)
  CoreGemmLaunch launch;            // all but the epoch
  int never_set_flag = -1;          // the test hook on this rank
  // The CTAs beside the GEMM on `comm` (gemm_rs's reduce, or ag_gemm's
  // pulls by SMs); the GEMM's persistent grid leaves their SMs free.
  int comm_ctas = 0;
  // gemm_rs: the owner's reduction (all but the epoch), and counters that
  // are always up (PrimeCoreSteps).
  bool reduce_scatter = false;
  gemm::PartialReduce reduce;
  DevPtr prime_counters = nullptr;
  // ag_gemm with comm_engine sm: the pull kernel (all but the epoch)
  // instead of copy-engine copies.
  bool sm_pulls = false;
  gemm::RowPullLaunch pull_kernel;
  // The core's stamps per group of tiles (gemm/tile_times.h; arrival steps
  // or owners): reset on the lane before each launch, read after each
  // traced iteration (ReadTileGroups).
  int groups = 0;
  DevPtr group_first = nullptr, group_last = nullptr;
};

// One fused step's kernel on this rank (fused_step.h).
struct FusedStepState {
  int step = -1;
  FusedLaunch launch;  // all but the epoch
  DevPtr error = nullptr;
};

struct RankState {
  // The SM count target of op `op`'s GEMMs (0: every SM).
  int SmCountTargetOf(int op) const {
    return op >= 0 && size_t(op) < sm_count_targets.size() ? sm_count_targets[size_t(op)] : 0;
  }

  const Plan* plan = nullptr;
  int rank = 0;
  int device = 0;
  Transport transport = Transport::kNone;
  // Sums, the compute steps' scratch matmuls: Workload::OutDType (the
  // workload dtype, bf16 for FP8).
  DType dtype = DType::kBf16;
  // Transfer slots (stage, inboxes) are sized and offset in elements of this
  // many bytes: the largest buffer element, so any transfer's type fits.
  size_t esize = 2;
  std::vector<int> sm_count_targets;  // per op: RankJob's
  bool tf32 = false;
  RankSeams api;

  std::vector<TransferLayout> layouts;  // every rank's (index = rank)
  std::vector<DevPtr> buffers;          // this rank's plan buffers
  std::vector<BufferType> types;        // what each holds (TypeBuffers)
  std::vector<DevPtr> scales;           // FP8: per-tensor dequantization factors (fp32), BufferType::scale
  DevPtr inbox = nullptr, flags = nullptr, stage = nullptr;
  std::vector<DevPtr> peer_inbox, peer_flags;  // flags transport, index = rank
  std::vector<GpuStream> lanes;                // one per plan lane
  std::vector<GpuStream> send_queue;           // NCCL: per lane with sends, else null
  std::vector<GpuEvent> done;                  // per step, recorded when the step's work ends
  NcclComm comm = nullptr;
  std::vector<DevPtr> scratch;     // compute steps' operands
  DevPtr prime_scratch = nullptr;  // PrimeKernels' operands: add [0, 16), copy [16, 48), flag [48, 52)
  std::vector<FusedStepState> fused;
  std::vector<CoreStepState> core;            // FusedEngine::kCore
  std::vector<TileGroupReading> tile_groups;  // the core steps' stamps of the traced iterations

  const RankPlan& rank_plan() const { return plan->ranks[size_t(rank)]; }
  const TransferLayout& layout() const { return layouts[size_t(rank)]; }
  // Device address of absolute row `row` of buffer `b`.
  DevPtr Row(BufferId b, int64_t row) const;
  size_t RowBytes(BufferId b) const;
  DType TypeOf(BufferId b) const { return types[size_t(b)].dtype; }
  // FP8: buffer b's per-tensor dequantization factor (a device fp32), or
  // nullptr when it has none.
  DevPtr ScaleOf(BufferId b) const {
    const int i = types[size_t(b)].scale;
    return i >= 0 && size_t(i) < scales.size() ? scales[size_t(i)] : nullptr;
  }
  std::string StepName(const Step& s) const;  // "rank 1 step 7 'recv.s1'"
};

// Issues step `s`'s GPU work on its stream(s) for iteration epoch `epoch` (>= 1).
Status IssueStep(RankState& st, const Step& s, uint32_t epoch);

inline constexpr size_t kPrimeScratchBytes = 64;

// Does, before any rank waits on another, each kind of GPU work whose first
// use waits for the device to drain, touching no other rank: launches every
// kernel this rank's iterations launch once, on its lanes (every GEMM and
// compute step on its own buffers, which each iteration rewrites before
// anything reads them, as the plan checker proves; the add kernel on
// `prime_scratch`), then a 16-byte copy on every lane and send queue and,
// over the flags transport, a flag write and wait there, on `prime_scratch`.
// Why: CUDA loads a kernel at its first launch (lazy loading, the default
// since CUDA 12.2) and the load waits for the device to drain. Inside an
// iteration a stream may wait on a flag that another rank's thread has yet to
// write; if that thread's first launch of a kernel comes then, neither ever
// moves (seen on an H200: loopback runs that hung at P 2 and 4). The copies
// and flags: a later H200 run (2026-11-28) stalled at iteration 0's first
// transfer step with every kernel loaded, so a stream's first copy or stream
// memory operation evidently waits for the device too
// (FakeGpuConfig::lazy_stream_setup; 4 of 49 runs before, 0 of 50 after).
Status PrimeKernels(RankState& st);

}  // namespace braid::cuda
