#include "gemm/tma_params.h"

#include <string>

namespace braid::cuda::gemm {

namespace {

uint32_t SwizzleSpan(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::k32B:
      return 32;
    case TmaSwizzle::k64B:
      return 64;
    case TmaSwizzle::k128B:
      return 128;
    case TmaSwizzle::kNone:
      break;
  }
  return 0;
}

Status Bad(const TmaTensorMapParams& p, const std::string& rule) {
  return Status::Invalid(std::string("TMA tensor map of ") + p.what + ": " + rule);
}

}  // namespace

uint32_t BoxBytes(const TmaTensorMapParams& p) { return p.box[0] * p.box[1] * uint32_t(p.elem_bytes); }

Status CheckTmaParams(const TmaTensorMapParams& p) {
  if (p.rank != 2) return Bad(p, "rank " + std::to_string(p.rank) + " (this core encodes 2-D maps only)");
  if (p.elem_bytes != 1 && p.elem_bytes != 2 && p.elem_bytes != 4)
    return Bad(p, "element size " + std::to_string(p.elem_bytes) + " bytes is not 1, 2 or 4");
  for (int i = 0; i < 2; ++i) {
    const std::string d = "dims[" + std::to_string(i) + "] = " + std::to_string(p.dims[i]);
    if (p.dims[i] < 1 || p.dims[i] > (uint64_t(1) << 32)) return Bad(p, d + " is outside 1..2^32");
    const std::string b = "box[" + std::to_string(i) + "] = " + std::to_string(p.box[i]);
    if (p.box[i] < 1 || p.box[i] > 256) return Bad(p, b + " is outside 1..256");
    if (p.elem_strides[i] < 1 || p.elem_strides[i] > 8)
      return Bad(p, "element stride " + std::to_string(p.elem_strides[i]) + " is outside 1..8");
  }
  if (p.stride_bytes[0] % 16 != 0)
    return Bad(p, "row stride " + std::to_string(p.stride_bytes[0]) + " bytes is not a multiple of 16");
  if (p.stride_bytes[0] >= (uint64_t(1) << 40))
    return Bad(p, "row stride " + std::to_string(p.stride_bytes[0]) + " bytes is not below 2^40");
  if (p.stride_bytes[0] < p.dims[0] * uint64_t(p.elem_bytes))
    return Bad(p, "row stride " + std::to_string(p.stride_bytes[0]) + " bytes is shorter than a row");
  const uint32_t inner = p.box[0] * uint32_t(p.elem_bytes);
  if (inner % 16 != 0) return Bad(p, "box row of " + std::to_string(inner) + " bytes is not a multiple of 16");
  const uint32_t span = SwizzleSpan(p.swizzle);
  if (span != 0 && inner > span)
    return Bad(
        p, "box row of " + std::to_string(inner) + " bytes exceeds the " + std::to_string(span) + "-byte swizzle span");
  return Status::Ok();
}

Status CheckTmaAddress(const char* what, uint64_t address) {
  if (address % 16 == 0) return Status::Ok();
  return Status::Invalid(std::string("TMA tensor map of ") + what + ": global address is not 16-byte aligned");
}

namespace {

// A K-major operand (rows × k, K contiguous, leading dimension ld elements):
// a box of tile_k × box_rows.
TmaTensorMapParams KMajorParams(const char* what, int64_t rows, int64_t k, int64_t ld, uint32_t box_rows,
                                const TileConfig& c) {
  TmaTensorMapParams p;
  p.what = what;
  p.elem_bytes = c.elem_bytes;
  p.dims[0] = uint64_t(k);
  p.dims[1] = uint64_t(rows);
  p.stride_bytes[0] = uint64_t(ld) * uint64_t(c.elem_bytes);
  p.box[0] = uint32_t(c.tile_k);
  p.box[1] = box_rows;
  return p;
}

}  // namespace

TmaTensorMapParams TmaParamsA(int64_t m, int64_t k, int64_t lda, const TileConfig& c) {
  return KMajorParams("A", m, k, lda, uint32_t(c.tile_m), c);
}

TmaTensorMapParams TmaParamsB(int64_t k, int64_t n, int64_t ldb, const TileConfig& c) {
  TmaTensorMapParams p;
  p.what = "B";
  p.dims[0] = uint64_t(n);
  p.dims[1] = uint64_t(k);
  p.stride_bytes[0] = uint64_t(ldb) * 2;
  p.box[0] = kTmaBoxBCols;
  p.box[1] = uint32_t(c.tile_k);
  return p;
}

TmaTensorMapParams TmaParamsBKMajor(int64_t n, int64_t k, int64_t ldb, const TileConfig& c) {
  return KMajorParams("B", n, k, ldb, uint32_t(c.tile_n), c);
}

}  // namespace braid::cuda::gemm
