// Host entries of the kernels `braid calibrate --measure` runs beside and
// instead of cuBLASLt (measure_kernels.cu). Each returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace braid::measure {

// Lets the holder and copy kernels take `smem_bytes` of dynamic shared
// memory: more than half an SM's, so that no two CTAs share an SM.
cudaError_t AllowMeasureSharedMemory(int smem_bytes);

// `ctas` CTAs of 1024 threads, one per SM: each adds 1 to *started, then
// spins reading the clock (copy == false) or copies src to dst (n16 16-byte
// words, split over the CTAs) in a loop, until *release >= generation or
// timeout_ns have passed, whichever comes first (never a hang).
cudaError_t LaunchHolder(int ctas, int smem_bytes, unsigned* started, const unsigned* release, unsigned generation,
                         bool copy, void* dst, const void* src, size_t n16, uint64_t timeout_ns, cudaStream_t s);

// One CTA of 1024 threads on each of `sms` SMs copying n16 16-byte words.
cudaError_t LaunchSmCopy(int sms, int smem_bytes, void* dst, const void* src, size_t n16, cudaStream_t s);

// One thread writes the GPU's global timer (ns) to *slot.
cudaError_t LaunchStamp(uint64_t* slot, cudaStream_t s);

// n bf16 values in [-1, 1) from a hash of their index and `seed`
// (GEMMs of zeros draw less power and run faster than real ones).
cudaError_t LaunchFillBf16(void* p, size_t n, unsigned seed, cudaStream_t s);

}  // namespace braid::measure
