// OpenBLAS, opened on first use as cuBLASLt is (kernels/cuda/real/
// cublaslt_library.cc): a braid command that runs no GEMM on the host
// (import, report, export, sim runs and tunes) neither maps it and its
// Fortran runtime nor starts its thread pool, whose idle threads spin on
// sched_yield for about 0.1 s after every start. Linked, it cost every
// command 2.3 ms of start-up on the 2-core build machine and a core shared
// with the spinners while an import's threads worked. The GPU bundle's
// braid links OpenBLAS statically (BRAID_BLAS_LINKED): there the table
// points at the linked functions.
#pragma once

#include <cstdint>

#include "braid/status.h"

namespace braid::cpu {

// The library's soname: libopenblas.so.0.
const char* OpenBlasSoname();

// Loads it once; later calls return the first call's answer. Unavailable,
// naming the package to install, when it cannot be loaded.
Status LoadBlas();

// C = A·B + beta·C, row-major fp32 (cblas_sgemm, no transposes). Without the
// library (LoadBlas failed: a caller that did not ask first), a plain loop
// computes the same product, slowly.
void Sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
           float* c, int64_t ldc);

// Sgemm's plain loop (double accumulation), for when the library is missing.
void PlainSgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                float* c, int64_t ldc);

// openblas_set_num_threads; nothing without the library.
void SetBlasThreads(int threads);

}  // namespace braid::cpu
