// The fused kernel's schedule as plain host C++: which tiles each CTA of each
// rank computes or moves, in which order, the flag each task waits on and the
// flag it sets. The host builds these tables and uploads them; the kernel
// (kernels/cuda/fused/fused_kernel.cu) and the fake (FakeGpu) run exactly them.
//
// ag_gemm, rank r: comm CTAs pull the other ranks' blocks of A, one row tile
//   (kTileM rows, all K) per task, nearest peer first (r+1, r+2, ...), each
//   setting its own flag; compute CTAs compute r's own block first (no wait),
//   then each pulled row tile's output tiles in pull order, waiting on its flag.
// gemm_rs, rank r: compute CTAs compute the partial tiles of the blocks the
//   other ranks own first (r+1, r+2, ...) and r's own block last, each setting
//   a "partial ready" flag; comm CTAs reduce r's output tiles, each waiting on
//   that tile's flag on every rank and summing every rank's partial (peer reads).
// Tasks are dealt round-robin over the CTAs of their kind, so every CTA's list
// is in the global order. Ragged tiles (M/P, N or K not multiples of the tile)
// are padded inside the kernel (zero-filled, masked stores): no shape is
// refused for its tiles, only for the kernel's limits (CheckFusedShape).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "braid/fused_tables.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid::cuda::fused {

enum class FusedOp { kAgGemm, kGemmRs };

// One rank's GEMM as the kernel sees it: c (m × n) = a (m × k) · b (k × n),
// m = the op's M (ag_gemm: gathered A; gemm_rs: the partial), n and k local.
struct FusedShape {
  FusedOp op = FusedOp::kAgGemm;
  int ranks = 2;
  int64_t m = 0, n = 0, k = 0;
  int comm_ctas = 1;
  int compute_ctas = 1;
  int64_t block_rows() const { return m / ranks; }  // mb = M / P
};

struct RankTables {
  std::vector<FusedTask> tasks;  // grouped by CTA
  std::vector<FlagRef> waits;
  std::vector<int32_t> cta_begin;  // ctas + 1 entries
  int32_t flags = 0;               // flags this rank owns
  int comm_ctas = 0;
  int ctas() const { return int(cta_begin.size()) - 1; }
};

// The comm CTAs a --comm-sms value means (0: the default, min(P, 8) capped
// at half the CTAs).
int DefaultCommCtas(int ranks, int ctas);

// Refuses what the kernel cannot run, one line each: P outside 2..kMaxRanks,
// M not divisible by P, sizes past int32 indexing, comm CTAs outside
// 1..kMaxCommCtas or leaving no compute CTA, fp32 (the tile loop is bf16/fp16
// mma). `sms_per_rank` is what one rank's kernel may occupy (the GPU's SMs,
// or SMs / P in loopback, where every rank shares one GPU).
Status CheckFusedShape(const FusedShape& s, DType dtype, int sms_per_rank);

// @pre CheckFusedShape(s, ...) is ok.
RankTables BuildRankTables(const FusedShape& s, int rank);
std::vector<RankTables> BuildAllTables(const FusedShape& s);

}  // namespace braid::cuda::fused
