// The owner's reduction of a reduce-scatter GEMM (issue 56 point 3; CUDA
// builds only): sums the `ranks` partials of its block that the sources'
// scatter epilogues (scatter_epilogue.h) stored in its receive buffer, tile
// by tile, each tile as soon as its counter holds epoch·ranks.
//
// A few persistent CTAs (`ctas`) walk the block's tiles (ReduceScheduler);
// per tile, one thread waits on the counter (ld.acquire.sys, bounded by
// timeout_ns on %globaltimer: bounded_wait.cuh), a barrier holds the rest,
// then every thread sums 8-element pieces of all slots in fp32 from 16-byte
// loads and writes the 16-bit result to out. Meant for a stream of its own
// beside the GEMM whose tiles it consumes, on `ctas` SMs; the GEMM never
// waits on it, so its waiting CTAs cannot hold the GEMM back for good.
// Not yet run on a GPU (braid_gemm_bench checks it on one).
#pragma once

#include <cuda_runtime_api.h>

#include "gemm/partial_reduce_tiles.h"

namespace braid::cuda::gemm {

// cudaErrorInvalidValue when CheckPartialReduce refuses `r` (call it first
// for the sentence) or ctas < 1; else the launch's error.
cudaError_t LaunchPartialReduce(const PartialReduce& r, int ctas, cudaStream_t s);

}  // namespace braid::cuda::gemm
