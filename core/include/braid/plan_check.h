// Static checks of a Plan: that it is well formed and cannot deadlock, and
// that executing it computes the op's result without data races. The
// planners' tests run every algorithm through both; a backend may run them
// before executing a plan it did not build itself.
#pragma once

#include "braid/plan.h"
#include "braid/status.h"

namespace braid {

class PlanGraph;

// Structure. On every rank: step ids are the step indices; every dep names an
// earlier step of the same rank; lanes exist; every region the step uses lies
// inside its buffer (all pieces, pieces ascending and disjoint, at least one
// row); shapes agree (gemm: a rows == c rows, a cols == B rows, c cols == B
// cols, b is the whole B buffer; reduce: a, b, c same rows and cols; copy: a,
// c same rows and cols). Across ranks: every send has exactly one recv with
// the same `match` on rank `peer` naming the sender as its peer and moving the
// same number of elements, and vice versa; every collective `match` appears
// exactly once on every rank with the same kind and consistent shapes
// (all_gather: c has P pieces of a's rows; reduce_scatter: a has P pieces of
// c's rows; all_reduce: a and c alike; and the same sizes on every rank).
// Finally the global graph — deps, lane order (a lane runs its steps in id
// order), send → matching recv, and all instances of one collective as a
// single node — is acyclic: with eager sends the plan cannot deadlock. The
// cross-rank rules are PlanGraph's (plan_graph.h), built after the per-rank
// ones, and then the sizes of what it matched.
// Compute steps (kCompute) use no buffers and only take part in ordering.
// Fused steps (kFused) are matched across ranks like collectives (same match,
// kind and sizes on every rank, one node of the graph); shapes: b the whole
// B, a cols == B rows, c cols == B cols, and c = P x a rows (all_gather) or
// a = P x c rows (reduce_scatter).
// Layer plans: every step, buffer and output names an existing op, and every
// output of RankPlan::outputs has a window of its buffer's rows.
Status CheckPlanStructure(const Plan& plan);
// The same, leaving the plan's graph (with its order) in `graph` for a caller
// that needs it next: the sim backend's Run then skips building it again.
// On failure `graph` is empty.
Status CheckPlanStructure(const Plan& plan, PlanGraph& graph);

// Structure first, then an abstract execution in an order the global graph
// allows. Every buffer row holds a symbolic content: empty, row g of A, row g
// of the product C, or the partial of C row g summed over a set of ranks'
// K shards; each spans columns (of A: its K range; of C: its B's columns).
// Inputs start as their A rows; a gemm needs A rows and, as b, the B input
// whose rows are exactly their K range (a replicated B is one input per
// block), and yields products (ag_gemm: all of K) in B's columns or the
// partials over the K shards of the A rows' columns (gemm_rs / gemm_ar); a
// reduce adds partials of the same row and columns over disjoint shard
// sets; copies, transfers and collectives move or sum contents; reading an
// empty row is an error. At the end every rank's output must hold the
// products (ag_gemm) or the full sums (gemm_rs / gemm_ar) of its output
// window, rows and columns. A fused step multiplies every
// rank's `a` (rows of its op's A) and moves the results like its collective:
// the gathered products (all_gather) or the full sums of the rank's block
// (reduce_scatter). Layer plans are checked op by op:
// a content also names its op (each op multiplies its own A), a gemm must read
// rows of its own op's A, only partials of one op add, and each GEMM op's
// output (RankPlan::outputs) must hold that op's products (ag_gemm and local
// GEMMs) or full sums (gemm_rs / gemm_ar). Then data races: on one rank, two
// steps that touch overlapping rows of one buffer, at least one writing,
// must be ordered by deps and lane order. Errors name rank, step and row.
Status CheckPlanSemantics(const Plan& plan);

}  // namespace braid
