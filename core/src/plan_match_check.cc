// Sizes across ranks (CheckPlanStructure, plan_check.h): what the plan graph
// matched must also agree in size.
#include <string>
#include <tuple>

#include "braid/step_access.h"
#include "plan_check_parts.h"
#include "plan_text.h"

namespace braid {

namespace {

const Step& StepAt(const Plan& plan, const PlanGraph& graph, int g) {
  return plan.ranks[size_t(graph.rank_of(g))].steps[size_t(graph.id_of(g))];
}

// Reports the mismatched send first in (sender, receiver, match) order.
Status CheckTransferSizes(const Plan& plan, const PlanGraph& graph) {
  int worst = -1;
  auto key = [&](int g) {
    const Step& s = StepAt(plan, graph, g);
    return std::make_tuple(graph.rank_of(g), s.peer, s.match, s.id);
  };
  for (int g = 0; g < graph.steps(); ++g) {
    const Step& sd = StepAt(plan, graph, g);
    if (sd.kind != StepKind::kSend) continue;
    const int rv = graph.partner(g);
    const RankPlan& rx = plan.ranks[size_t(graph.rank_of(g))];
    const RankPlan& ry = plan.ranks[size_t(graph.rank_of(rv))];
    if (Elements(rx, sd.a) != Elements(ry, StepAt(plan, graph, rv).c) && (worst < 0 || key(g) < key(worst))) {
      worst = g;
    }
  }
  if (worst < 0) return Status::Ok();
  const Step& sd = StepAt(plan, graph, worst);
  const Step& rv = StepAt(plan, graph, graph.partner(worst));
  const int from = graph.rank_of(worst), to = graph.rank_of(graph.partner(worst));
  return Status::Invalid(StepRef(from, sd) + " sends " + std::to_string(Elements(plan.ranks[size_t(from)], sd.a)) +
                         " elements but its recv " + StepRef(to, rv) + " takes " +
                         std::to_string(Elements(plan.ranks[size_t(to)], rv.c)) + " elements");
}

// Groups in match order, members in rank order, each against rank 0's.
Status CheckGroupSizes(const Plan& plan, const PlanGraph& graph) {
  for (int c = 0; c < graph.groups(); ++c) {
    const std::span<const int> members = graph.group_members(c);
    const RankPlan& rp0 = plan.ranks[0];
    const Step& s0 = StepAt(plan, graph, members[0]);
    for (int r = 0; r < graph.ranks(); ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      const Step& s = StepAt(plan, graph, members[size_t(r)]);
      if (s.a.total_rows() != s0.a.total_rows() || Cols(rp, s.a) != Cols(rp0, s0.a) ||
          s.c.total_rows() != s0.c.total_rows()) {
        return Status::Invalid(StepRef(r, s) + ": collective match " + std::to_string(s.match) +
                               " has other sizes than on " + StepRef(0, s0));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckMatchedSizes(const Plan& plan, const PlanGraph& graph) {
  BRAID_RETURN_IF_ERROR(CheckTransferSizes(plan, graph));
  return CheckGroupSizes(plan, graph);
}

}  // namespace braid
