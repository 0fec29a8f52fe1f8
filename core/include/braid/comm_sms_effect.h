// When the comm_sms knob can change a run. The tuner's search space and
// `braid run --comm-sms` follow this rule, so that no config records a knob
// that changed nothing.
#pragma once

#include "braid/overlap_config.h"
#include "braid/workload.h"

namespace braid {

// Whether comm_sms can change a run of `c` on `op` on a GPU whose comm
// kernels share the SMs with the GEMM (the sim backend's model): the fused
// kernel always splits its SMs by it; serial never (its collective runs
// beside no GEMM); otherwise only while some comm kernel holds SMs — every
// one on the SM engine, and on the copy engine the reduces of gemm_rs /
// gemm_ar (an ag_gemm on the copy engine only moves data) — or whenever
// sm_margin keeps comm_sms SMs from the GEMM.
bool CommSmsTakeEffect(const OverlapConfig& c, Op op);

}  // namespace braid
