// The plan checker's parts, one concern per file; plan_check.cc runs them in
// this order and stops at the first error.
#pragma once

#include "braid/plan.h"
#include "braid/plan_graph.h"
#include "braid/status.h"

namespace braid {

// plan_structure_check.cc: the plan's ranks and lanes, then on every rank its
// buffers, outputs and ops, and every step's id, deps, op, lane, regions
// (inside their buffers), shapes (rows and columns agree) and peer.
Status CheckRanksStructure(const Plan& plan);

// plan_match_check.cc: a send and its recv move the same number of elements;
// the members of a collective group have the same sizes on every rank.
// @pre CheckRanksStructure(plan).ok() and `graph` is plan's graph.
Status CheckMatchedSizes(const Plan& plan, const PlanGraph& graph);

// plan_execution_check.cc: the abstract execution of CheckPlanSemantics in
// graph.order(), ending with the outputs. @pre the plan passed
// CheckPlanStructure with this graph (built with an order), plan.tp() <= 64.
Status ExecutePlanAbstractly(const Plan& plan, const PlanGraph& graph);

// plan_race_check.cc: two steps of rank `rank` that touch overlapping rows of
// one buffer, at least one writing, are ordered by deps and lane order.
// @pre CheckPlanStructure(plan).ok()
Status CheckRaces(const Plan& plan, int rank);

}  // namespace braid
