// The tables the fused P2P+GEMM kernel runs (kernels/cuda/fused): plain
// structs shared by the host schedule (fused_schedule.h), its proofs, the
// checking fake and the CUDA kernel. No CUDA include: nvcc and g++ both read it.
//
// One rank's kernel is `ctas` persistent CTAs; CTA c runs
// tasks[cta_begin[c] .. cta_begin[c+1]) in order. Before a task it waits until
// every flag in waits[wait_begin .. +wait_count) holds the run's epoch
// (load-acquire, system scope); after it, when `sets` >= 0, it stores the
// epoch into its own rank's flag `sets` (store-release, system scope).
// CTAs below comm_ctas only move data (pull, reduce); the others only compute.
#pragma once

#include <cstdint>

namespace braid::cuda::fused {

// The GEMM tile and the CTA size the kernel is compiled for.
constexpr int kTileM = 64;
constexpr int kTileN = 64;
constexpr int kTileK = 32;
constexpr int kThreads = 128;
// Limits of the kernel's parameter block and of a sensible comm share.
constexpr int kMaxRanks = 8;
constexpr int kMaxCommCtas = 32;

enum TaskKind : int32_t {
  // c[row0.., col0..] (rows × cols) = a[row0.., 0..k) · b[0..k, col0..): the
  // rank's own GEMM (ag_gemm: into its output; gemm_rs: into its partial buffer).
  kGemmTile = 0,
  // ag_gemm: a[row0 .. +rows) (all k columns) ← rank src's a, same rows.
  kPullRows = 1,
  // gemm_rs: out[row0 - rank·mb ..] (rows × cols) = Σ over every rank q of
  // q's partial[row0.., col0..], summed in fp32.
  kReduceTile = 2,
};

struct FusedTask {
  int32_t kind = kGemmTile;
  int32_t row0 = 0, rows = 0;  // rows of the rank's GEMM (M of the whole op)
  int32_t col0 = 0, cols = 0;  // kPullRows: 0 and k
  int32_t src = -1;            // kPullRows: the rank read from
  int32_t wait_begin = 0, wait_count = 0;
  int32_t sets = -1;  // flag of this rank set after the task, -1 none
};

struct FlagRef {
  int32_t rank = 0;
  int32_t index = 0;
};

// What the kernel writes when a wait times out (the first one wins); the
// host reads it after every iteration. code 0 = no error.
struct FusedError {
  uint32_t code = 0;  // 1 = a flag wait timed out
  int32_t rank = -1;
  int32_t task = -1;  // index into the rank's tasks
  int32_t flag_rank = -1, flag_index = -1;
  int32_t row0 = -1, col0 = -1;  // the task's tile
  int32_t pad = 0;
};
static_assert(sizeof(FusedError) == 32, "the host reads FusedError as 32 bytes");

// The kernel's parameter block (passed by value); the host fills it per rank.
struct FusedLaunch {
  int32_t op = 0;  // 0 ag_gemm, 1 gemm_rs (FusedOp)
  int32_t rank = 0, ranks = 2;
  int32_t m = 0, n = 0, k = 0;  // the rank's GEMM (FusedShape)
  int32_t dtype = 0;            // 0 bf16, 1 fp16
  int32_t ctas = 0;             // grid: comm + compute CTAs
  uint32_t epoch = 1;           // the value flags are raised to this iteration
  uint64_t timeout_ns = 0;      // a flag wait longer than this fails the kernel
  // The rank's tables (device copies of RankTables).
  const FusedTask* tasks = nullptr;
  const FlagRef* waits = nullptr;
  const int32_t* cta_begin = nullptr;
  // Every rank's buffers as this rank addresses them (peer pointers; index = rank).
  // a: ag_gemm, the gathered A (m × k), own block filled; gemm_rs, A's shard (m × k).
  void* a[kMaxRanks] = {};
  // gemm_rs: every rank's partial product (m × n).
  void* partial[kMaxRanks] = {};
  uint32_t* flags[kMaxRanks] = {};
  void* b = nullptr;    // k × n
  void* out = nullptr;  // ag_gemm: m × n; gemm_rs: the reduced block (m/P × n)
  FusedError* error = nullptr;
  // Test hook (--fused-never-set / the fake): this flag of this rank is never
  // raised, so its waiters must time out. -1: none.
  int32_t never_set_flag = -1;
};
static_assert(sizeof(FusedLaunch) <= 4096, "kernel parameters are limited to 4 KiB");

}  // namespace braid::cuda::fused
