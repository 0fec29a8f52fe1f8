// TransformerEngine's rules for a ub_cfgs dict, as a checker over the YAML
// text `braid presets export-te` writes. It reads the text, not the
// exporter's structs, so that it stays an independent witness of what TE
// would do with the file.
//
// The rules, learned from initialize_ub in TE's
// transformer_engine/pytorch/module/base.py (docs/cuda.md, "TransformerEngine
// ub_cfgs"), for a non-FP8 (bf16, fp16) model:
//   keys      the twelve GEMMs {qkv,proj,fc1,fc2}_{fprop,dgrad,wgrad}; TE
//             never reads another key;
//   fields    only the option names initialize_ub knows; num_sm 1..32
//             (userbuffers' limit), cga_size and num_splits at least 1,
//             set_sm_margin and use_ce 0/1, atomic_gemm 0 (FP8 only);
//   methods   per key: qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad:
//             ring_exchange; proj_fprop, fc2_fprop: ring_exchange or pipeline;
//             qkv_dgrad, fc1_dgrad: bulk, ring_exchange or pipeline;
//             qkv_wgrad, fc1_wgrad: bulk; proj_wgrad, fc2_wgrad: external;
//             pipeline never on an all-gather GEMM (qkv_fprop, fc1_fprop,
//             proj_dgrad, fc2_dgrad, qkv_wgrad, fc1_wgrad);
//   pairs     a column wgrad (qkv_wgrad, fc1_wgrad) only beside a bulk dgrad
//             (TE raises when its dgrad is ring_exchange or pipeline); an
//             external wgrad (proj_wgrad, fc2_wgrad) only beside its layer's
//             dgrad on ring_exchange. A key left out takes TE's default
//             method (the qkv/fc1 dgrads bulk, the proj/fc2 dgrads
//             ring_exchange).
// Not checkable here: TE's limit of 3 GEMM streams (_NUM_MAX_UB_STREAMS) is
// fixed inside initialize_ub, and ub_cfgs has no field that sets it (one
// would be an unknown field).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace braid::testing_te {

using UbFields = std::map<std::string, std::string>;  // field -> value
using UbCfgs = std::map<std::string, UbFields>;       // key -> its fields

// "key:" then "  field: value" lines; comment and blank lines skipped.
UbCfgs ParseUbCfgs(const std::string& yaml);

// The rules one key's entry breaks, alone ("fields" and "methods" above).
std::vector<std::string> TeEntryViolations(const std::string& key, const UbFields& fields);

// Every rule `cfgs` breaks, each entry's and each pair's, each line starting
// with the key it is about. Empty when TE accepts the dict.
std::vector<std::string> TeRuleViolations(const UbCfgs& cfgs);

}  // namespace braid::testing_te
