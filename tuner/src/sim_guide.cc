#include "braid/sim_guide.h"

#include <memory>
#include <utility>

#include "braid/plan_check.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"

namespace braid {

Result<Guide> MakeSimGuide(const Workload& w, const std::string& topology) {
  BRAID_ASSIGN_OR_RETURN(auto hw, LoadSimHardware(topology));
  return MakeSimGuide(w, hw);
}

Guide MakeSimGuide(const Workload& w, const SimHardware& hw) {
  return MakeSimGuide([w](const OverlapConfig& c) { return BuildPlan(w, c); }, hw);
}

Guide MakeSimGuide(CandidatePlanner plan_of, const SimHardware& hw) {
  auto sim = std::make_shared<SimBackend>(hw.gpu, hw.topo);
  return Guide([sim, plan_of = std::move(plan_of)](const OverlapConfig& c) -> Result<double> {
    BRAID_ASSIGN_OR_RETURN(auto plan, plan_of(c));
    BRAID_RETURN_IF_ERROR(CheckPlanStructure(plan));
    BRAID_ASSIGN_OR_RETURN(auto ns, sim->Evaluate(plan));
    return double(ns);
  });
}

}  // namespace braid
