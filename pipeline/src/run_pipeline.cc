#include "braid/run_pipeline.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "braid/backend_kind.h"
#include "braid/comm_sms_effect.h"
#include "braid/data_parallel.h"
#include "braid/gpu_files.h"
#include "braid/lower_bound.h"
#include "braid/metrics.h"
#include "braid/op_metrics.h"
#include "braid/planner.h"
#include "braid/run_options_check.h"
#include "braid/topology_files.h"
#include "plan_size.h"

namespace braid {

namespace {

// Comm SMs are taken from the GPU's SMs; the rest compute. Every op's own
// budgets too (a block's GEMMs each at their own config).
Status CheckCommSmsFit(const Plan& plan, const Topology& topo) {
  int most = 0;
  std::string who;
  for (int i = 0; i < plan.op_count(); ++i) {
    const OverlapConfig& c = plan.op_config(i);
    for (int sms : {c.comm_sms, c.wgrad_comm_sms}) {
      if (sms > most) {
        most = sms;
        who = plan.is_layer() ? plan.ops[size_t(i)].name + ": " : "";
      }
    }
  }
  if (most == 0) return Status::Ok();
  BRAID_ASSIGN_OR_RETURN(auto gpu, LoadGpu(topo.gpu));
  if (most >= gpu.sm_count) {
    return Status::Invalid(who + "`comm_sms` " + std::to_string(most) + " leaves no SM to compute on: " + gpu.name +
                           " has " + std::to_string(gpu.sm_count) + " SMs (topology " + topo.name + ")");
  }
  return Status::Ok();
}

// A comm_sms that the sim reads nowhere would be recorded as a knob that
// changed nothing. (The cuda backend reads it for every config: its GEMMs
// leave that many SMs free.)
Status CheckCommSmsTakeEffect(const RunRequest& r, const Plan& plan) {
  if (r.config.comm_sms == 0 || !IsBackend(r.backend, BackendKind::kSim)) return Status::Ok();
  std::vector<Op> ops;
  if (r.layer) {
    for (const LayerOp& op : r.layer->ops) {
      if (op.kind == LayerOpKind::kTpGemm) ops.push_back(op.gemm.op);
    }
  } else {
    ops.push_back(plan.workload.op);
  }
  for (Op op : ops) {
    if (CommSmsTakeEffect(plan.config, op)) return Status::Ok();
  }
  return Status::Invalid(
      "`comm_sms` has no effect on the sim backend here: on the copy engine an ag_gemm's comm only moves data and "
      "holds no SMs (drop `comm_sms`, or keep them free with `sm_margin`)");
}

Result<Plan> SerialPlanOf(const PreparedRun& run) {
  if (!run.layer && IsUlysses(run.plan.config.algorithm)) {
    // A Ulysses op's ranks hold the whole weight: its serial plan is the
    // plain all-to-all after (or before) the GEMM, not the TP collective's.
    OverlapConfig plain;
    plain.algorithm = Algorithm::kA2a;
    return BuildPlan(run.plan.workload, plain);
  }
  if (!run.layer) return BuildPlan(run.plan.workload, OverlapConfig{});
  return BuildSerialLayerPlan(*run.layer);
}

}  // namespace

Result<PreparedRun> PrepareRun(const RunRequest& request) {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(request.options));
  // A name that is no backend's is refused where the backend is made.
  const std::optional<BackendKind> backend = BackendKindNamed(request.backend);
  if (request.config.comm_sms > 0 && backend == BackendKind::kCpu) {
    return Status::Invalid("`comm_sms` applies to GPU backends only (the cpu backend has no SMs)");
  }
  PreparedRun p;
  p.layer = request.layer;
  // The topology's size first: a plan for `tp` 4096 takes a minute and
  // gigabytes to build only to be refused (issue 27 point 4).
  BRAID_ASSIGN_OR_RETURN(auto topo, LoadTopology(request.topology));
  if (request.dp_group_tp > 0) {
    if (request.layer) return Status::Invalid("`dp_group_tp` places one DP op, not a layer");
    BRAID_ASSIGN_OR_RETURN(topo, DpGroupTopology(topo, request.dp_group_tp, request.op.tp));
  }
  BRAID_RETURN_IF_ERROR(topo.CheckFits(request.layer ? request.layer->tp : request.op.tp));
  // Its size before it is built: a plan of billions of steps would build
  // until memory runs out.
  const int tp = request.layer ? request.layer->tp : request.op.tp;
  if (!request.layer) BRAID_RETURN_IF_ERROR(request.config.Validate(request.op));  // its own words first
  const int64_t estimated_steps = request.layer ? pipeline::EstimateLayerPlanSteps(*request.layer, request.config)
                                                : pipeline::EstimatePlanSteps(request.op, request.config);
  BRAID_RETURN_IF_ERROR(pipeline::CheckPlanSteps(estimated_steps, tp, request.config));
  BRAID_RETURN_IF_ERROR(pipeline::CheckRunEvents(estimated_steps, request.options.iters));
  BRAID_ASSIGN_OR_RETURN(auto plan, request.layer ? BuildLayerPlan(*request.layer, request.config)
                                                  : BuildPlan(request.op, request.config));
  p.plan = std::move(plan);
  BRAID_RETURN_IF_ERROR(pipeline::CheckRunEvents(int64_t(p.plan.total_steps()), request.options.iters));
  BRAID_RETURN_IF_ERROR(CheckCommSmsFit(p.plan, topo));
  BRAID_RETURN_IF_ERROR(CheckCommSmsTakeEffect(request, p.plan));
  if (request.options.verify && backend == BackendKind::kSim) {
    return Status::Invalid("`verify` needs real data: the sim backend computes none (use the cpu backend)");
  }
  p.topology = std::move(topo);
  p.topology_recorded = backend != BackendKind::kCpu;
  p.options = request.options;
  p.notes = request.notes;
  return p;
}

Result<LowerBound> MeasureRunLowerBound(const PreparedRun& run, Backend& backend) {
  BRAID_ASSIGN_OR_RETURN(auto serial, SerialPlanOf(run));
  return MeasureLowerBound(backend, serial, run.options);
}

namespace {

// Per-op figures of a layer run (none for a single op).
std::optional<OpMetricsBuilder> OpFiguresOf(const PreparedRun& run) {
  if (!run.layer) return std::nullopt;
  std::vector<std::string> names;
  for (const PlanOp& op : run.plan.ops) names.push_back(op.name);
  return OpMetricsBuilder(std::move(names));
}

// What a run is recorded with once the backend is done, whole or streamed:
// the caller's notes, the lower bound (measured unless known), the figures
// and the layer note with each op's figures.
Status RecordRun(const PreparedRun& run, Backend& backend, const RunMetrics& metrics,
                 const std::optional<OpMetricsBuilder>& ops, std::optional<LowerBound> known, RecordedRun& out) {
  out.output.notes.insert(out.output.notes.end(), run.notes.begin(), run.notes.end());
  if (!known) {
    BRAID_ASSIGN_OR_RETURN(auto lb, MeasureRunLowerBound(run, backend));
    known = lb;
  }
  out.record = RecordOfRun(run.plan, run.topology_recorded ? run.topology.name : "", backend.name(), run.options,
                           out.output, metrics, known);
  if (run.layer) {
    const std::vector<OpFigures> figures = ops ? ops->Finish() : std::vector<OpFigures>{};
    out.record.notes["layer"] = LayerJson(*run.layer, &run.plan, ops ? &figures : nullptr);
  }
  return Status::Ok();
}

}  // namespace

Result<RecordedRun> ExecuteRun(const PreparedRun& run, Backend& backend, std::optional<LowerBound> known) {
  RecordedRun out;
  BRAID_ASSIGN_OR_RETURN(auto ran, backend.Run(run.plan, run.options));
  out.output = std::move(ran);
  std::optional<OpMetricsBuilder> ops = OpFiguresOf(run);
  if (ops) ops->Add(out.output.events);
  BRAID_RETURN_IF_ERROR(RecordRun(run, backend, ComputeRunMetrics(out.output.events), ops, known, out));
  return out;
}

namespace {

// A backend's whole event list as per-iteration batches, moved.
std::vector<std::vector<Event>> ByIteration(std::vector<Event>& events) {
  std::vector<std::vector<Event>> batches;
  for (Event& e : events) {
    const size_t it = size_t(std::max(0, e.iteration));
    if (batches.size() <= it) batches.resize(it + 1);
    batches[it].push_back(std::move(e));
  }
  events.clear();
  events.shrink_to_fit();
  return batches;
}

}  // namespace

Result<RecordedRun> ExecuteRunStreamed(const PreparedRun& run, Backend& backend, Store* store,
                                       std::optional<LowerBound> known) {
  std::unique_ptr<Store::RunWriter> writer;
  if (store != nullptr) {
    BRAID_ASSIGN_OR_RETURN(writer, store->BeginRun());
  }
  RunMetricsBuilder figures;
  std::optional<OpMetricsBuilder> ops = OpFiguresOf(run);
  Store::RunPart part;
  bool lanes_stored = false;
  const auto take = [&](std::vector<Event>& events) -> Status {
    BRAID_RETURN_IF_ERROR(figures.Add(events));
    if (ops) ops->Add(events);
    if (!writer) return Status::Ok();
    part.lanes.clear();
    if (!lanes_stored) part.lanes = LanesOf(run.plan);
    lanes_stored = true;
    // Swapped, not moved: the backend reuses the buffer it gets back.
    part.events.swap(events);
    return writer->Add(part);
  };
  RunOptions options = run.options;
  options.on_iteration = take;
  RecordedRun out;
  BRAID_ASSIGN_OR_RETURN(auto ran, backend.Run(run.plan, options));
  out.output = std::move(ran);
  for (std::vector<Event>& batch : ByIteration(out.output.events)) {
    if (!batch.empty()) BRAID_RETURN_IF_ERROR(take(batch));
  }
  part = {};
  BRAID_RETURN_IF_ERROR(RecordRun(run, backend, figures.Finish(), ops, known, out));
  if (!writer) return out;
  if (!lanes_stored) BRAID_RETURN_IF_ERROR(writer->Add({LanesOf(run.plan), {}}));
  BRAID_ASSIGN_OR_RETURN(out.record.run_id, writer->Finish({MetaOf(out.record), RowsOf(out.record)}));
  return out;
}

Result<int64_t> StoreRun(Store& store, const PreparedRun& prepared, RecordedRun& run) {
  BRAID_ASSIGN_OR_RETURN(
      auto id, store.WriteRun(MetaOf(run.record), LanesOf(prepared.plan), run.output.events, RowsOf(run.record)));
  run.record.run_id = id;
  return id;
}

Status VerifyVerdict(const RunOutput& out) {
  if (!out.verify.ran || out.verify.ok) return Status::Ok();
  char msg[160];
  std::snprintf(msg, sizeof msg, "verification failed: max relative error %.3g on rank %d exceeds 1e-4",
                out.verify.max_rel_error, out.verify.worst_rank);
  return Status::Internal(msg);
}

}  // namespace braid
