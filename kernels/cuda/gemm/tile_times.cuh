// Device side of TileTimes (tile_times.h), shared by both GEMM kernels.
#pragma once

#include <cstdint>

#include "gemm/gemm_device_common.cuh"
#include "gemm/tile_times.h"

namespace braid::cuda::gemm {

// One thread, once its i-th tile's rows are here and before its loads.
__device__ __forceinline__ void MarkTileStart(const TileTimes& x, int64_t i) {
  if (x.first_start == nullptr) return;
  atomicMin(reinterpret_cast<unsigned long long*>(x.first_start + x.group[i]),
            static_cast<unsigned long long>(GlobalTimerNs()));
}

// One thread, once the i-th tile's stores are issued.
__device__ __forceinline__ void MarkTileEnd(const TileTimes& x, int64_t i) {
  if (x.last_end == nullptr) return;
  atomicMax(reinterpret_cast<unsigned long long*>(x.last_end + x.group[i]),
            static_cast<unsigned long long>(GlobalTimerNs()));
}

}  // namespace braid::cuda::gemm
