// Internal: emits the ops of a layer plan into one Plan and chains them
// (used by the layer planner and the train planner).
#pragma once

#include <string>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "plan_builder.h"

namespace braid::detail {

// One op (or a group of ops emitted together) as emitted: per rank the step
// ids [begin, end).
struct Emitted {
  std::vector<int> begin, end;
};

// Steps of [begin, end) that no step of the range names as a dep.
std::vector<int> Sinks(const RankPlan& rp, int begin, int end);

// Steps [begin, end) of `rp` reordered so that `order` (a permutation of
// those ids) is their new sequence; ids and deps are renumbered. Every dep
// must still name an earlier step: the plan checker proves it.
void Reorder(RankPlan& rp, int begin, const std::vector<int>& order);

// A plain column-parallel GEMM: every rank holds all of A and multiplies it by
// its column shard of B, in `chunks` row slices of C (M % chunks == 0);
// slice j waits for `deps_of(r)[j]` on rank r when given.
void PlanLocalGemm(const Workload& w, const OpScope& scope, Plan& plan, int chunks = 1,
                   const std::vector<std::vector<std::vector<int>>>* deps_of = nullptr);

// Ulysses' MLP GEMM: rank r multiplies its M/P rows of A by the whole B
// (M % P == 0), with no communication.
void PlanRowLocalGemm(const Workload& w, const OpScope& scope, Plan& plan);

// A tensor-parallel layer refuses a2a and a2a_direct (as the run's
// algorithm or an op's own: they replicate the weights), and a Ulysses layer
// (LayerWorkload::ulysses) refuses everything else for its projections;
// each message names `algorithm` and the op.
Status CheckUlyssesMethods(const LayerWorkload& lw, const OverlapConfig& run);

// Each op's config in a train plan (planner.h's TrainOpConfigs).
Result<std::vector<OverlapConfig>> MethodsOf(const LayerWorkload& lw, const OverlapConfig& cfg);

// The train phase's plan (planner.h): BuildLayerPlan's body for Phase::kTrain.
Result<Plan> BuildTrainPlan(const LayerWorkload& lw, const OverlapConfig& cfg);

class LayerBuilder {
 public:
  LayerBuilder(const LayerWorkload& lw, const OverlapConfig& cfg);

  // Emits op `op` of the layer (for part `part`, rows = its tokens, queries
  // [q_begin, q_end)) planned by `cfg`, and returns its step ranges.
  Result<Emitted> Emit(const LayerOp& op, int part, int64_t tokens, int64_t q_begin, int64_t q_end,
                       const OverlapConfig& cfg);
  // Row-parallel wgrad fed by `dgrad`'s ring (`external`): its local GEMM in
  // P row slices, slice j right after the dgrad GEMMs of ring step j on the
  // compute lane and waiting for them. Returns the range of both ops.
  // `cfg`: the wgrad's config (algorithm external), recorded as its op's.
  Emitted EmitExternal(const LayerOp& op, const Emitted& dgrad, const OverlapConfig& cfg);
  // Groups `first` and `second` (emitted one after the other) as TE's `bulk`
  // pair: the steps of `second` that come before its first compute-lane step
  // (its all-gather) move ahead of `first`, so that it runs beside `first`'s
  // GEMM, and `first`'s collective beside `second`'s GEMM; both collectives
  // run on the comm lane "bulk". Returns the range of both ops.
  Emitted Bulk(const Emitted& first, const Emitted& second);

  // Op `e` waits, on every rank, for the last steps of each of `before`.
  void Chain(const Emitted& e, const std::vector<const Emitted*>& before);
  // The number of ops emitted so far.
  int op_count() const { return int(plan_.ops.size()); }
  // Ops `dgrad` and dgrad + 1 (emitted serial) labelled as the bulk pair
  // of configs `d` and `w`, each collective taking the budget of the GEMM
  // it runs beside (OpKnobs).
  void SetBulkPair(int dgrad, const OverlapConfig& d, const OverlapConfig& w);
  Plan Finish();
  void set_parts(int parts) { parts_ = parts; }

 private:
  // The plan's lane for comm lane `index` of a config with priority
  // `high`: ops of one plan may differ in lanes and priority (a train
  // block's GEMMs each at their own config), so lanes are added on demand,
  // one set per priority; a plan of one config keeps MakeLanes' lanes.
  int CommLane(bool high, int index);
  // The comm lane named `name` with `priority`, added if missing (a second
  // priority's lane gets the priority in its name).
  int NamedLane(const std::string& name, int priority);

  const LayerWorkload& lw_;
  Plan plan_;
  int parts_ = 1;
};

}  // namespace braid::detail
