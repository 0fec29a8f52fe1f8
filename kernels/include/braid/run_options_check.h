// The bounds every backend holds a run's --warmup and --iters to, checked
// before anything runs.
#pragma once

#include <cfloat>
#include <optional>
#include <string>

#include "braid/backend.h"
#include "braid/budgets.h"
#include "braid/fp8.h"
#include "braid/status.h"

namespace braid {

// Invalid unless `scale` (named `field`) is a usable FP8 scale: finite,
// positive and within fp32's normal range (CheckFp8Scale).
inline Status CheckFp8ScaleOption(const std::optional<double>& scale, const char* field) {
  if (!scale.has_value()) return Status::Ok();
  const double v = *scale;
  // Outside fp32's range a cast would turn the user's value into inf or 0.
  const bool in_float_range = v == v && v >= -double(FLT_MAX) && v <= double(FLT_MAX);
  Status s = in_float_range ? CheckFp8Scale(float(v))
                            : Status::Invalid("FP8 scale " + std::to_string(v) +
                                              " is out of range: it must be a finite fp32 number above 0");
  if (!s.ok()) return Status::Invalid(std::string("`") + field + "`: " + s.message());
  return Status::Ok();
}

// Invalid (a user error) unless 0 <= warmup, iters <= kMaxRunIterations and
// the FP8 scales, where set, are usable.
inline Status CheckRunOptions(const RunOptions& o) {
  if (o.warmup < 0 || o.iters < 0 || o.warmup > kMaxRunIterations || o.iters > kMaxRunIterations) {
    return Status::Invalid("`warmup` and `iters` must be between 0 and " + std::to_string(kMaxRunIterations));
  }
  BRAID_RETURN_IF_ERROR(CheckFp8ScaleOption(o.fp8_scale_a, "fp8_scale_a"));
  return CheckFp8ScaleOption(o.fp8_scale_b, "fp8_scale_b");
}

}  // namespace braid
