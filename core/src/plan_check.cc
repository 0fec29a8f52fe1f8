// The plan checker's entry points: the parts (plan_check_parts.h) in order,
// around the one plan graph (plan_graph.h).
#include "braid/plan_check.h"

#include <string>

#include "braid/plan_graph.h"
#include "plan_check_parts.h"

namespace braid {

namespace {

// Per-rank rules, then the graph (pairs, groups, order), then the sizes of
// what it matched.
Status CheckStructure(const Plan& plan, PlanGraph* graph) {
  BRAID_RETURN_IF_ERROR(CheckRanksStructure(plan));
  BRAID_RETURN_IF_ERROR(graph->Rebuild(plan));
  return CheckMatchedSizes(plan, *graph);
}

}  // namespace

Status CheckPlanStructure(const Plan& plan) {
  PlanGraph graph;
  return CheckStructure(plan, &graph);
}

Status CheckPlanStructure(const Plan& plan, PlanGraph& graph) {
  Status st = CheckStructure(plan, &graph);
  if (!st.ok()) graph = PlanGraph{};  // a per-rank or size error leaves no stale graph behind
  return st;
}

Status CheckPlanSemantics(const Plan& plan) {
  PlanGraph graph;
  BRAID_RETURN_IF_ERROR(CheckStructure(plan, &graph));
  if (plan.tp() > 64) {
    return Status::Unavailable("semantic check supports at most 64 ranks (P=" + std::to_string(plan.tp()) + ")");
  }
  BRAID_RETURN_IF_ERROR(ExecutePlanAbstractly(plan, graph));
  for (int r = 0; r < plan.tp(); ++r) BRAID_RETURN_IF_ERROR(CheckRaces(plan, r));
  return Status::Ok();
}

}  // namespace braid
