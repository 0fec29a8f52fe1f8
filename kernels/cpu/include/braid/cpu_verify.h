// Verification: the plain reference C = A·B and the normwise relative error
// of each rank's output window against it.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/backend.h"
#include "braid/host_matrix.h"
#include "braid/plan.h"

namespace braid {

inline constexpr double kVerifyTolerance = 1e-4;

// C = A·B with one cblas_sgemm.
HostMatrix ReferenceGemm(const HostMatrix& a, const HostMatrix& b);

// One rank's output: window.rows × window.cols floats, row stride `ld`.
struct RankOutput {
  OutputWindow window;
  const float* data = nullptr;
  int64_t ld = 0;
};

// max|out − ref| / max|ref| over the window (absolute error when ref is all
// zero); NaN counts as infinitely wrong.
double WindowRelError(const HostMatrix& ref, const RankOutput& out);

// WindowRelError against the reference of the window alone (A's window
// rows times B's window columns), so that a rank of a multi-process run
// checks its block without computing all of C.
double WindowRelErrorFromInputs(const HostMatrix& a, const HostMatrix& b, const RankOutput& out);

// Max over ranks, the worst rank, ok = max <= tolerance.
VerifyResult VerifyOutputs(const HostMatrix& ref, const std::vector<RankOutput>& outputs,
                           double tolerance = kVerifyTolerance);

}  // namespace braid
