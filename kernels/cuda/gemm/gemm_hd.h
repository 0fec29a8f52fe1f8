// BRAID_GEMM_HD marks the GEMM core's index math as callable from both the
// host and the device: the kernels (gemm_sm80.cu, gemm_sm90.cu) and the host
// tests (tests/cuda/gemm_*_test.cc) run the same functions, so what is tested
// here without a GPU is what the kernels compute.
#pragma once

#if defined(__CUDACC__)
#define BRAID_GEMM_HD __host__ __device__ __forceinline__
#else
#define BRAID_GEMM_HD inline
#endif
