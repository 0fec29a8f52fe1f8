// When the comm_sms knob can change a run. The tuner's search space and
// `braid run --comm-sms` follow this rule, so that no config records a knob
// that changed nothing.
#pragma once

#include "braid/overlap_config.h"
#include "braid/workload.h"

namespace braid {

// Whether comm_sms can change a run of `c` on `op` on a GPU whose comm
// kernels run on SMs (the sim backend's model: a comm kernel moves data no
// faster than its SMs copy, and holds them from a concurrent GEMM): the
// fused kernel always splits its SMs by it; every other algorithm while some
// comm kernel runs on SMs — every one on the SM engine, and on the copy
// engine the reduces of gemm_rs / gemm_ar (an ag_gemm on the copy engine
// only moves data; so do a2a's and a2a_direct's transfers of either op, whose
// adds run on the compute lane) — or whenever sm_margin keeps comm_sms SMs
// from the GEMM.
bool CommSmsTakeEffect(const OverlapConfig& c, Op op);

}  // namespace braid
