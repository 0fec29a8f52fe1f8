// Per-pass time of a layer run, for `braid report --compare`: how long, per
// timed iteration, the worst rank had any step of a pass (fprop, dgrad,
// wgrad) running on any lane. The union, not the sum: a bulk pair's
// all-gather and GEMM running side by side count once. Steps are matched to
// their op by name ("fc2.dgrad.gemm" is op "fc2.dgrad"), the op's pass read
// from the run's layer note.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/event.h"

namespace braid::cli {

// pass -> p50 over iterations of the worst rank's busy time; empty when the
// notes have no layer ops (a single-op run or an imported trace).
std::map<std::string, double> PassBusyNs(const std::vector<Event>& events, const nlohmann::json& notes);

}  // namespace braid::cli
