// What the details panel shows of one event: every stored field, and the
// achieved rate (TFLOP/s for compute, GB/s for transfers).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "braid/event.h"
#include "braid/view/run_summary.h"

namespace braid::view {

using DetailLine = std::pair<std::string, std::string>;  // field, value

// The op a step belongs to: the op whose name, then '.', starts the event's
// name (the longest such), or nullptr.
const OpNote* OpOfEvent(const std::string& event_name, const std::vector<OpNote>& ops);

// `origin_ns` is subtracted from start times (the timeline's origin). With
// the run's ops (a layer run), an event of one of them also shows its op,
// pass, method and (a tuned block) the GEMM's own config.
std::vector<DetailLine> EventDetails(const Event& e, const std::string& lane_name, int64_t origin_ns,
                                     const std::vector<OpNote>& ops = {});

// A layer run's GEMMs, one line each, for the details panel when the run
// opens: "qkv.fprop" -> "438 µs · exposed 0 ns · overlap 1.000 · ring
// chunks=1 ..." (the worst rank's p50, from the layer note). Empty when no
// op has figures (a single op, an imported trace, a store from before
// per-op figures).
std::vector<DetailLine> OpSummaryLines(const std::vector<OpNote>& ops);

// The op part of a step's name ("fc2.dgrad" of "fc2.dgrad.gemm"): all but
// its last dotted part, or "" for a name without a dot.
std::string OpPartOfName(const std::string& step_name);

}  // namespace braid::view
