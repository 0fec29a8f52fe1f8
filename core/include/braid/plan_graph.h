// The global step graph of a Plan, built once and shared: the plan checker
// runs its abstract execution in its order, the sim engine drives its event
// loop from it, and the cuda backend will pair its NCCL calls with it.
//
// Steps are numbered globally: rank r's step `id` has global index
// first_step(r) + id (ranks in order, each rank's steps in id order).
//
// Edges ("b waits for a"), the rules of plan.h:
//   - dependency: a is one of b's deps (same rank);
//   - lane order: a is the previous step on b's lane (same rank);
//   - transfer: b is a recv and a its matching send (partner);
//   - collective: the P members of a group (kCollective or kFused steps with
//     one `match`, one per rank) are a single node, which waits for every
//     predecessor of every member.
// With eager sends the plan cannot deadlock exactly when this graph (groups
// as one node) is acyclic.
//
// Build checks what the graph itself relies on and nothing more: at least
// one rank; on every rank step ids are the step indices, deps name earlier
// steps, lanes exist, send / recv peers are ranks; every send has exactly one
// recv with the same match on its peer naming the sender, and vice versa;
// every collective / fused match appears exactly once on every rank with the
// same step kind and collective kind; the graph is acyclic (when asked for an
// order). Buffers, regions, shapes and transfer sizes are CheckPlanStructure's
// (plan_check.h), which builds this graph after its own per-rank checks. An
// error names the rank and step (and prints a deadlock cycle) in the words of
// plan_check.h; with several problems it reports the first in the order above.
//
// Threading: a PlanGraph is a value; const calls may run concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "braid/plan.h"
#include "braid/status.h"

namespace braid {

struct PlanGraphOptions {
  // Compute order() and so find a deadlock cycle. The sim engine's event
  // loop needs no order (a stuck step shows as one that never ran) and skips
  // it to keep its per-evaluation load cheap.
  bool order = true;
};

class PlanGraph {
 public:
  PlanGraph() = default;

  static Result<PlanGraph> Build(const Plan& plan, PlanGraphOptions options = {});

  // Build into this graph, reusing its storage: without an order, rebuilding
  // allocates nothing once a plan of the same size was seen.
  // @post ok(): every accessor below describes `plan`; otherwise the graph is
  // empty (ranks() == 0, steps() == 0).
  Status Rebuild(const Plan& plan, PlanGraphOptions options = {});

  int ranks() const { return int(first_.empty() ? 0 : first_.size() - 1); }
  int steps() const { return int(rank_of_.size()); }
  // @pre 0 <= rank < ranks()
  int first_step(int rank) const { return first_[size_t(rank)]; }
  int global(int rank, int id) const { return first_[size_t(rank)] + id; }
  // @pre 0 <= g < steps() for every per-step accessor.
  int rank_of(int g) const { return rank_of_[size_t(g)]; }
  int id_of(int g) const { return g - first_[size_t(rank_of_[size_t(g)])]; }

  // A send's recv, a recv's send (global indices); -1 for other steps.
  int partner(int g) const { return partner_[size_t(g)]; }

  // Collective groups, numbered by ascending match.
  int groups() const { return int(group_off_.empty() ? 0 : group_off_.size() - 1); }
  // The group of a kCollective / kFused step; -1 for other steps.
  int group_of(int g) const { return group_of_[size_t(g)]; }
  // @pre 0 <= c < groups(). @post size() == ranks(), member r on rank r.
  std::span<const int> group_members(int c) const {
    return {group_steps_.data() + group_off_[size_t(c)], size_t(ranks())};
  }

  // The steps of g's rank that wait for g (dependency and lane-order edges),
  // in global order; a step appears twice when g is both its dep and its
  // lane predecessor. Transfer and collective edges are partner() and
  // group_members().
  std::span<const int> dependents(int g) const {
    return {dependents_.data() + dep_off_[size_t(g)], size_t(dep_off_[size_t(g) + 1] - dep_off_[size_t(g)])};
  }
  // How many entries of the dependents() lists name g: its deps (with
  // repeats) plus one when it has a lane predecessor. A step may start once
  // that many completions reached it and, for a recv, its send completed; a
  // group once every member may.
  int in_degree(int g) const { return in_degree_[size_t(g)]; }
  std::span<const int> in_degrees() const { return in_degree_; }  // every step's, by global index
  // How many of g's deps are on another lane (repeats counted): the waits a
  // backend that runs each lane as a stream must add; lane order is free.
  int cross_lane_deps(int g) const { return cross_lane_deps_[size_t(g)]; }
  // The per-step arrays whole, by global index, for loops over every step.
  std::span<const int> cross_lane_deps() const { return cross_lane_deps_; }
  std::span<const int> partners() const { return partner_; }
  std::span<const int> groups_of() const { return group_of_; }

  // Every step once, each after everything it waits for; the members of a
  // group are adjacent, in rank order. Deterministic for a given plan.
  // Empty when built without PlanGraphOptions::order.
  std::span<const int> order() const { return order_; }

 private:
  void Clear();
  const Step& StepOf(const Plan& plan, int g) const;
  Status Scan(const Plan& plan);
  Status PairTransfers(const Plan& plan);
  Status ExplainPairingError(const Plan& plan) const;
  Status GroupCollectives(const Plan& plan);
  void FillDependents();
  Status Order(const Plan& plan);

  std::vector<int> first_;        // rank -> global index of its step 0; back() = steps()
  std::vector<int> rank_of_;      // global index -> rank
  std::vector<int> partner_;      // global index -> partner, or -1
  std::vector<int> group_of_;     // global index -> group, or -1
  std::vector<int> group_off_;    // group -> offset into group_steps_ (CSR)
  std::vector<int> group_steps_;  // members, rank order
  std::vector<int> dep_off_;      // global index -> offset into dependents_ (CSR)
  std::vector<int> dependents_;
  std::vector<int> in_degree_;
  std::vector<int> cross_lane_deps_;
  std::vector<int> order_;

  // Scratch kept for reuse across Rebuild calls, sized to the largest plan
  // seen; the *_n_ counts say how much of it the last Scan filled.
  struct Endpoint {
    int64_t match;
    int src, dst;  // sender and receiver (a collective step: its rank twice)
    int g;
  };
  std::vector<Endpoint> sends_, recvs_, colls_;
  std::vector<std::pair<int, int>> edges_;  // (before, after), same rank, in dependents order
  size_t send_n_ = 0, recv_n_ = 0, coll_n_ = 0, edge_n_ = 0;
  std::vector<int> table_, lane_last_, lane_of_, cursor_;
};

}  // namespace braid
