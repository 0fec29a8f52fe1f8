#include "braid/sim_guide.h"

#include <memory>

#include "braid/gpu_files.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid {

Result<Guide> MakeSimGuide(const Workload& w, const std::string& topology) {
  Result<Topology> topo = LoadTopology(topology);
  if (!topo.ok()) return topo.status();
  Result<GpuSpec> gpu = LoadGpu(topo->gpu);
  if (!gpu.ok()) return gpu.status();
  auto sim = std::make_shared<SimBackend>(*gpu, *topo);
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
