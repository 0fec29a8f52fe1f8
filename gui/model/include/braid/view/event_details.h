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

}  // namespace braid::view
