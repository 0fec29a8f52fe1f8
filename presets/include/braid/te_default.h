// TransformerEngine's default comm-GEMM overlap for an op, as a Braid
// config: the baseline `braid tune` compares its winner with. TE's own
// defaults for an fprop key the ub_cfgs file leaves out (braid/te_ub_cfgs.h):
//   ag_gemm  ring exchange, one step per rank, copy engine, num_sm 1, no
//            SM margin (TE: method ring_exchange, use_ce 1)
//   gemm_rs  pipeline: 4 splits, 16 comm SMs, the GEMM on the SMs they leave
//            (TE: method pipeline, num_splits 4, num_sm 16, set_sm_margin 1)
//   gemm_ar  no overlap (TE overlaps only sequence-parallel GEMMs): serial
// When the default cannot run on the workload's shapes, serial stands in
// and `note` says why.
#pragma once

#include <string>

#include "braid/overlap_config.h"
#include "braid/workload.h"

namespace braid {

struct TeDefault {
  OverlapConfig config;
  std::string note;  // empty when the TE default itself is used
};

TeDefault TeDefaultConfig(const Workload& w);

}  // namespace braid
