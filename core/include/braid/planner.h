// Turns a workload and an overlap config into a Plan.
//
// serial   collective then GEMM (ag_gemm) or GEMM then collective.
// chunked  data slicing: chunk i is slice i of every rank block (for gemm_ar
//          slice i of M); chunk i's collective overlaps chunk i±1's GEMM.
// ring     the collective becomes P−1 peer-to-peer steps. For gemm_rs /
//          gemm_ar the last step computes the rank's own block, so only one
//          add follows the last GEMM.
// bidir_ring  each block is halved; the halves travel in both directions.
// direct   P−1 transfers straight between each pair of ranks (step s: to
//          r+s, from r−s); gemm_rs sends each partial to its owner, which
//          sums them as they land and adds its own, computed last.
// a2a      Ulysses (replicated B): ag_gemm computes every column block of
//          C for its rows, then posts the whole all-to-all; gemm_rs waits for
//          the whole all-to-all of A, then multiplies and adds. The baseline.
// a2a_direct  the all-to-all as direct's pairs (step s: to r+s, from r−s),
//          each block sent as soon as computed (ag_gemm, own block last) or
//          multiplied as soon as landed (gemm_rs, own block first).
// fused    one fused kernel (StepKind::kFused) per rank, all ranks' matched.
#pragma once

#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

Result<Plan> BuildPlan(const Workload& workload, const OverlapConfig& config);

// A layer plan: every op of the layer in one Plan (Plan::ops), chained by
// dependencies: on each rank, op i+1's first steps (those with no deps of
// their own) wait for op i's last steps (those no step of op i waits for).
// Ops are chained by order, not data: each GEMM op multiplies its own A and B
// (which the cpu backend's --verify takes from one block's reference tensors:
// kernels/cpu/src/block_inputs.h).
//   serial / chunked / ring / bidir_ring / direct / fused: each TP GEMM op planned as
//     BuildPlan would plan it alone (buffers prefixed "qkv." etc., match ids
//     offset per op) under its own config (LayerOp::config) where set, else
//     the run's; local GEMMs are one GEMM step; attention one compute step.
//     PlanOp::config and PlanOp::knobs record what each op ran with.
//   iso: the sequence is cut into `chunks` parts (`splits` weights allowed);
//     each part runs the whole chain as serial gemm_ar collectives, part j's
//     collectives on comm lane 1 + j % streams. Steps are emitted segment
//     by segment, a segment ending with an op that all-reduces (qkv,
//     attention, out_proj; then fc1, fc2), and within a segment part by
//     part: on the compute lane part j+1's segment comes right after part
//     j's all-reduce is issued and runs beside it (ISO's point: one part's
//     attention beside the other's all-reduce), and part j's next segment,
//     which waits for that all-reduce, after it. Part j's attention also
//     waits for the qkv of earlier parts (causal attention reads their K and
//     V).
//   train (Phase::kTrain): the forward, then the backward (layer_workload.h),
//     each GEMM with its own method: LayerOp::method where set, else the
//     run's algorithm where the GEMM takes it and serial where it does not
//     (bulk: column-parallel dgrads only; fused/ring/...: not the local row
//     wgrad). A wgrad follows its dgrad: a column-parallel wgrad is bulk when
//     its dgrad is (and must be: TE's pair), a row-parallel wgrad is external
//     after a ring or bidir_ring dgrad. `external` and `iso` are refused as
//     the run's algorithm.
//       bulk: dgrad and wgrad planned serial, then the wgrad's all-gather
//         moved ahead of the dgrad's GEMM on the comm lane, so the two
//         branches (all-gather ‖ dgrad GEMM, reduce-scatter ‖ wgrad GEMM)
//         overlap: each waits only for its own data. Two SM budgets, as in
//         TE: the all-gather takes the dgrad's comm_sms, the reduce-scatter
//         the wgrad's (its own config's, else the dgrad's wgrad_comm_sms,
//         else the dgrad's comm_sms); PlanOp::knobs says so.
//       external: the wgrad's local GEMM in P row slices on the compute lane,
//         slice j right after (and waiting for) the dgrad GEMMs of ring step
//         j: a GEMM fed chunk by chunk by another GEMM's ring exchange.
//     PlanOp::method names each op's method.
//   a2a / a2a_direct (Ulysses, replicated weights): a Ulysses block's
//     (LayerWorkload::ulysses) projections, each planned as BuildPlan would
//     plan it alone, its MLP GEMMs row-local; a Ulysses block takes no other
//     method, and tensor-parallel layers refuse these two (as the run's
//     algorithm and as any op's own).
// Each GEMM op's output is listed in RankPlan::outputs.
Result<Plan> BuildLayerPlan(const LayerWorkload& layer, const OverlapConfig& config);

// The layer with every GEMM serial: BuildLayerPlan with the default config
// and each op's own config dropped (a tuned block's GEMMs keep theirs
// otherwise). The baseline that runs, tunes and lower bounds compare with.
// A Ulysses block's baseline is a2a (the plain all-to-all beside each
// projection): its replicated weights leave no TP collective to run.
Result<Plan> BuildSerialLayerPlan(const LayerWorkload& layer);

// A train layer's per-op configs as BuildLayerPlan derives them (own config,
// else the run's where the GEMM takes it; a wgrad following its dgrad), one
// per op of `train`; Invalid for the pairings it refuses. What the tuner
// records for a wgrad it did not choose itself.
Result<std::vector<OverlapConfig>> TrainOpConfigs(const LayerWorkload& train, const OverlapConfig& run);

// What a wgrad without a config of its own runs beside its dgrad's `dgrad`
// (`column`: a column-parallel layer's): bulk beside a bulk dgrad, sharing
// its knobs but for the reduce-scatter's budget (wgrad_comm_sms where the
// dgrad names one); external after a ring or bidir_ring dgrad of a row
// layer; otherwise serial, with no comm knobs (nothing of its own to act on).
OverlapConfig WgradConfigBeside(const OverlapConfig& dgrad, bool column);

}  // namespace braid
