// Device side of ScatterEpilogue (scatter_epilogue.h), shared by both GEMM
// kernels: where a finished tile is stored, and the rise of its owner's
// counter once the whole tile is stored.
#pragma once

#include <cstdint>

#include "gemm/scatter_epilogue.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

// A tile's destination: its element (row0, col0) and the leading dimension,
// in c (the plain epilogue) or in the owner's slot for this rank.
struct TileOut {
  uint16_t* first;
  int64_t ld;
  uint32_t* counter;  // the owner's counter of the tile; null: the plain epilogue
};

__device__ __forceinline__ TileOut TileOutOf(const ScatterEpilogue& s, const TileScheduler& sched, const TileCoord& t,
                                             uint16_t* c, int64_t ldc) {
  if (s.ranks == 0) return {c + t.row0 * ldc + t.col0, ldc, nullptr};
  const ScatterTile d = ScatterTileOf(s, sched, t);
  return {static_cast<uint16_t*>(s.slots[d.owner]) + d.offset, sched.n, s.counters[d.owner] + d.counter};
}

// One thread, after a barrier that every thread which stored the tile has
// passed: the owner may count the tile as received from this rank.
__device__ __forceinline__ void RaiseTileCounter(uint32_t* counter) {
  // The barrier orders the other threads' stores before this thread at CTA
  // scope only, and those stores went to another GPU's memory. A fence is
  // cumulative: fence.acq_rel.sys makes every store this thread has
  // observed, the barrier's included, visible at system scope before
  // anything it is followed by (the pattern of CUTLASS's GenericBarrier,
  // at system rather than GPU scope).
  asm volatile("fence.acq_rel.sys;" ::: "memory");
  // The add itself is a release at system scope, so an owner that reads the
  // counter with ld.acquire.sys (partial_reduce.cu) and sees this increment
  // also sees the tile. A red, not an atom: no value comes back to wait for.
  asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(counter), "r"(1u) : "memory");
}

}  // namespace braid::cuda::gemm
