// The parameters of the TMA tensor maps the sm_90a kernel loads through, as
// plain host data: what cuTensorMapEncodeTiled will be given (tma_encode.cc
// turns them into the call), and the rules the driver imposes, checked here
// so that a shape TMA cannot describe is refused with a sentence before any
// driver call (CUDA driver API, cuTensorMapEncodeTiled):
//  - rank 1..5 (ours: 2); dims[i] in 1..2^32;
//  - every global stride (bytes, dims 1..rank-1) a multiple of 16 and < 2^40;
//  - box[i] in 1..256; box[0]·element bytes a multiple of 16;
//  - element strides in 1..8;
//  - with a swizzle, box[0]·element bytes ≤ the swizzle span (32, 64, 128);
//  - the global address 16-byte aligned.
// Index 0 is the innermost (contiguous) dimension, as the driver counts.
#pragma once

#include <cstdint>

#include "braid/status.h"
#include "gemm/tile_config.h"

namespace braid::cuda::gemm {

enum class TmaSwizzle { kNone, k32B, k64B, k128B };

struct TmaTensorMapParams {
  const char* what = "";  // "A", "B" or "C", for messages
  int rank = 2;
  int elem_bytes = 2;
  uint64_t dims[2] = {0, 0};       // elements; [0] contiguous
  uint64_t stride_bytes[1] = {0};  // dims[1]'s stride
  uint32_t box[2] = {0, 0};        // elements moved per load
  uint32_t elem_strides[2] = {1, 1};
  TmaSwizzle swizzle = TmaSwizzle::k128B;
};

// Bytes one box moves: what the producer's mbarrier.arrive.expect_tx counts.
uint32_t BoxBytes(const TmaTensorMapParams& p);

// The first rule `p` breaks, naming the operand, the field and the rule.
Status CheckTmaParams(const TmaTensorMapParams& p);
// The global address rule, separate because only the launch knows the address.
Status CheckTmaAddress(const char* what, uint64_t address);

// A (m × k, row-major, leading dimension lda elements of c.elem_bytes): box
// of tile_k × tile_m.
TmaTensorMapParams TmaParamsA(int64_t m, int64_t k, int64_t lda, const TileConfig& c);
// B (k × n, row-major, leading dimension ldb elements): box of 64 columns ×
// tile_k rows; a stage loads tile_n / 64 such boxes (the 128B swizzle spans
// at most 64 2-byte elements).
TmaTensorMapParams TmaParamsB(int64_t k, int64_t n, int64_t ldb, const TileConfig& c);
// FP8 B, stored as bᵀ (n × k row-major, K contiguous, leading dimension ldb
// bytes: the K-major layout FP8 wgmma and cuBLASLt's FP8 matmul require):
// one box of tile_k (128 bytes) × tile_n rows per stage.
TmaTensorMapParams TmaParamsBKMajor(int64_t n, int64_t k, int64_t ldb, const TileConfig& c);

inline constexpr int kTmaBoxBCols = 64;

}  // namespace braid::cuda::gemm
