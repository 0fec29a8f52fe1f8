// The guided strategy's model: the sim backend's prediction of a config's
// makespan for one workload on a topology (one simulated iteration, no
// events; thousands per second).
#pragma once

#include <functional>
#include <string>

#include "braid/plan.h"
#include "braid/search.h"
#include "braid/sim_backend.h"
#include "braid/workload.h"

namespace braid {

// Loads the topology (built-in name or .toml) and its GPU file once.
Result<Guide> MakeSimGuide(const Workload& w, const std::string& topology);
// The same over hardware already loaded (one lookup per tuning session).
Guide MakeSimGuide(const Workload& w, const SimHardware& hw);
// Any candidate's plan (a training step's ops planned together, tune.h).
using CandidatePlanner = std::function<Result<Plan>(const OverlapConfig&)>;
Guide MakeSimGuide(CandidatePlanner plan_of, const SimHardware& hw);

}  // namespace braid
