// cuBLASLt opened when the first GEMM handle is made, not when braid starts.
// Linked directly, libcublasLt's loader work and static initialisers cost
// every braid command about 0.13 s and 210 MB of resident memory before
// main (measured on the build machine: a C program linking only it), though
// only the cuda backend ever calls it. The table holds the entry points
// RealBlasLt uses, resolved once by name from the library of this toolkit's
// major version, found as the dynamic loader finds any library
// (LD_LIBRARY_PATH, braid's run path, ldconfig).
#pragma once

#include <cublasLt.h>

#include "braid/status.h"

namespace braid::cuda {

struct CublasLtLibrary {
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtGetStatusString) status_string = nullptr;
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set_attribute = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) preference_set_attribute = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
};

// The library's soname for the headers braid was built with.
const char* CublasLtSoname();

// Opens the library once per process (later calls return the same table or
// the same error); it stays loaded. kUnavailable naming the library and the
// loader's reason when it or one of its entry points is missing.
Result<const CublasLtLibrary*> LoadCublasLt();

}  // namespace braid::cuda
