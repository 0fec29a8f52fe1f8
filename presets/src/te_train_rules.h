// How a train export (te_export.h) keeps to the pairings TransformerEngine's
// initialize_ub accepts for the backward keys: bulk only for a column-parallel
// layer's dgrad and wgrad, external only for a row-parallel wgrad, and each
// wgrad entry only beside a dgrad entry that TE pairs it with.
//
// Why the export needs this at all: a preset file keys presets by op and pass,
// not by layer, so a file may hold a wgrad preset whose method TE takes for
// some wgrad keys but not for this one (an ag_gemm wgrad preset may be bulk or
// external, and a nearest match may answer a row-parallel wgrad with a
// column-parallel one's config), and each GEMM's preset is tuned on its own,
// so a wgrad's preset may not agree with its dgrad's.
#pragma once

#include <string>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/te_export.h"

namespace braid::detail {

// `config`, or serial where `config` is bulk or external and TE takes neither
// for `op`'s key; then `comments` gains a line saying so.
OverlapConfig ConfigTeTakes(const LayerOp& op, const OverlapConfig& config, std::vector<std::string>& comments);

// Fits the wgrad entry `wgrad` (already mapped from its preset's ConfigTeTakes)
// to the entry written for its layer's dgrad:
//   column-parallel: bulk beside a bulk dgrad (from `preset_config`'s knobs,
//     whatever its method: TE overlaps both or neither), otherwise omitted;
//   row-parallel: kept when external beside a ring_exchange dgrad, otherwise
//     omitted (TE takes only external for the key; left out, TE keeps its own
//     default).
// An omitted entry's te.comments become the one line that says why.
void FitWgradToDgrad(const LayerOp& op, const TeUbCfg& dgrad, const OverlapConfig& preset_config, int tp,
                     int default_comm_sms, TeUbCfg& wgrad);

}  // namespace braid::detail
