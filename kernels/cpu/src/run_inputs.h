// The deterministic inputs of a run: one A and B per GEMM op (empty for a
// layer's compute ops), the same in every process for the same seed.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/host_matrix.h"
#include "braid/plan.h"

namespace braid::cpu {

struct RunInputs {
  std::vector<HostMatrix> a, b;  // indexed by op (one entry for a single-op plan)
};

RunInputs MakeRunInputs(const Plan& plan, uint64_t seed);

}  // namespace braid::cpu
