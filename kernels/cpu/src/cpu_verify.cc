#include "braid/cpu_verify.h"

#include <cmath>
#include <limits>

#include "blas_library.h"

namespace braid {

HostMatrix ReferenceGemm(const HostMatrix& a, const HostMatrix& b) {
  HostMatrix c(a.rows, b.cols);
  if (a.rows == 0 || b.cols == 0) return c;
  cpu::Sgemm(a.rows, b.cols, a.cols, a.data.data(), a.cols, b.data.data(), b.cols, 0.0f, c.data.data(), c.cols);
  return c;
}

double WindowRelError(const HostMatrix& ref, const RankOutput& out) {
  const OutputWindow& w = out.window;
  double max_err = 0, max_ref = 0;
  for (int64_t i = 0; i < w.rows; ++i) {
    const float* r = ref.row(w.row0 + i) + w.col0;
    const float* o = out.data + i * out.ld;
    for (int64_t j = 0; j < w.cols; ++j) {
      const double err = std::fabs(double(o[j]) - double(r[j]));
      if (!(err <= max_err)) max_err = std::isnan(err) ? std::numeric_limits<double>::infinity() : err;
      max_ref = std::fmax(max_ref, std::fabs(double(r[j])));
    }
  }
  return max_ref > 0 ? max_err / max_ref : max_err;
}

double WindowRelErrorFromInputs(const HostMatrix& a, const HostMatrix& b, const RankOutput& out) {
  const OutputWindow& w = out.window;
  HostMatrix ref(w.rows, w.cols);
  if (w.rows > 0 && w.cols > 0 && a.cols > 0) {
    cpu::Sgemm(w.rows, w.cols, a.cols, a.row(w.row0), a.cols, b.data.data() + w.col0, b.cols, 0.0f, ref.data.data(),
               w.cols);
  }
  RankOutput local = out;
  local.window.row0 = 0;
  local.window.col0 = 0;
  return WindowRelError(ref, local);
}

VerifyResult VerifyOutputs(const HostMatrix& ref, const std::vector<RankOutput>& outputs, double tolerance) {
  VerifyResult v;
  v.ran = true;
  for (size_t r = 0; r < outputs.size(); ++r) {
    const double e = WindowRelError(ref, outputs[r]);
    if (v.worst_rank < 0 || e > v.max_rel_error) {
      v.max_rel_error = e;
      v.worst_rank = int(r);
    }
  }
  v.ok = !outputs.empty() && v.max_rel_error <= tolerance;
  return v;
}

}  // namespace braid
