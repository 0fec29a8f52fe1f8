#include "braid/planner.h"

#include "plan_builder.h"

namespace braid {

Result<Plan> BuildPlan(const Workload& workload, const OverlapConfig& config) {
  BRAID_RETURN_IF_ERROR(config.Validate(workload));
  Plan plan;
  plan.workload = workload;
  plan.config = config;
  plan.lanes = detail::MakeLanes(config);
  plan.ranks.resize(size_t(workload.tp));
  Status s;
  switch (config.algorithm) {
    case Algorithm::kSerial:
    case Algorithm::kChunked:
      s = detail::BuildCollectivePlan(workload, config, plan);
      break;
    case Algorithm::kRing:
    case Algorithm::kBidirRing:
      s = detail::BuildRingPlan(workload, config, plan);
      break;
    case Algorithm::kDirect:
      s = detail::BuildDirectPlan(workload, config, plan);
      break;
    case Algorithm::kA2a:
    case Algorithm::kA2aDirect:
      s = detail::BuildUlyssesPlan(workload, config, plan);
      break;
    case Algorithm::kFused:
      s = detail::BuildFusedPlan(workload, config, plan);
      break;
    case Algorithm::kIso:  // Validate refused it
      s = Status::Invalid("iso applies to layer workloads only");
      break;
    case Algorithm::kBulk:  // Validate refused them
    case Algorithm::kExternal:
      s = Status::Invalid("bulk and external apply to training layers only");
      break;
  }
  if (!s.ok()) return s;
  return plan;
}

}  // namespace braid
