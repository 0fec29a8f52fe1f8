// What the cuda backend makes of each op's knobs (Plan::op_knobs). Host
// arithmetic, tested without a GPU.
//   - A GEMM's cuBLASLt SM count target (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET,
//     as TransformerEngine sets it for set_sm_margin): sm_count − margin_sms
//     for an op with sm_margin, else none (0: every SM). A margin needs a
//     count: the cuda backend has no default comm SM count to resolve
//     margin_sms 0 to.
//   - Transport and NCCL's CTA budget are set once per run (one communicator,
//     one transfer path): from the run's config. Ops whose engine or comm
//     SMs differ from it run with the run's, and RunNotes says so.
#pragma once

#include <string>
#include <vector>

#include "braid/plan.h"
#include "braid/status.h"

namespace braid::cuda {

// Per op (one for a single-op plan): its GEMMs' SM count target, 0 = none.
// Invalid, naming the op, for a margin without a count or one that leaves
// no SM for the GEMM.
Result<std::vector<int>> SmCountTargets(const Plan& plan, int sm_count);

// What the run cannot honour op by op (engines and comm SMs that differ from
// the run's), one note each kind; empty when every op agrees with the run.
std::vector<std::string> PerOpKnobNotes(const Plan& plan);

}  // namespace braid::cuda
