// The bounds every backend holds a run's --warmup and --iters to, checked
// before anything runs.
#pragma once

#include <string>

#include "braid/backend.h"
#include "braid/status.h"

namespace braid {

constexpr int kMaxRunIterations = 1000000;

// Invalid (a user error) unless 0 <= warmup, iters <= kMaxRunIterations.
inline Status CheckRunOptions(const RunOptions& o) {
  if (o.warmup < 0 || o.iters < 0 || o.warmup > kMaxRunIterations || o.iters > kMaxRunIterations) {
    return Status::Invalid("`warmup` and `iters` must be between 0 and " + std::to_string(kMaxRunIterations));
  }
  return Status::Ok();
}

}  // namespace braid
