#include "braid/sim_guide.h"

#include <memory>

#include "braid/plan_check.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"

namespace braid {

Result<Guide> MakeSimGuide(const Workload& w, const std::string& topology) {
  Result<SimHardware> hw = LoadSimHardware(topology);
  if (!hw.ok()) return hw.status();
  return MakeSimGuide(w, *hw);
}

Guide MakeSimGuide(const Workload& w, const SimHardware& hw) {
  auto sim = std::make_shared<SimBackend>(hw.gpu, hw.topo);
  return Guide([sim, w](const OverlapConfig& c) -> Result<double> {
    Result<Plan> plan = BuildPlan(w, c);
    if (!plan.ok()) return plan.status();
    BRAID_RETURN_IF_ERROR(CheckPlanStructure(*plan));
    Result<int64_t> ns = sim->Evaluate(*plan);
    if (!ns.ok()) return ns.status();
    return double(*ns);
  });
}

}  // namespace braid
