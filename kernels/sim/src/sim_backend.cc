#include "braid/sim_backend.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "braid/plan_check.h"
#include "braid/run_options_check.h"
#include "braid/sim_loopback.h"
#include "braid/step_event.h"
#include "braid/topology_files.h"
#include "sim_engine.h"

namespace braid {

SimBackend::SimBackend(GpuSpec gpu, Topology topo) : SimBackend(std::move(gpu), std::move(topo), SimModelOptions{}) {}

SimBackend::SimBackend(GpuSpec gpu, Topology topo, SimModelOptions options)
    : gpu_(std::move(gpu)),
      topo_(std::move(topo)),
      model_(options),
      engine_(std::make_unique<sim::Engine>(gpu_, topo_, model_.comm_sm_contention, model_.loopback)) {}

SimBackend::~SimBackend() = default;

Result<int64_t> SimBackend::Evaluate(const Plan& plan) { return Simulate(plan, false); }

Result<int64_t> SimBackend::Simulate(const Plan& plan, bool graph_built) {
  BRAID_RETURN_IF_ERROR(model_.loopback ? sim::CheckLoopback(gpu_, plan) : topo_.CheckFits(plan.tp()));
  BRAID_RETURN_IF_ERROR(gpu_.CheckSupports(plan.workload.dtype));
  if (!std::isfinite(model_.comm_sm_contention) || model_.comm_sm_contention < 0) {
    return Status::Invalid("sim: comm_sm_contention must be a finite number >= 0");
  }
  // Each op's SM budgets must leave its GEMM an SM: a fused kernel's comm
  // part, or a margin kept for the comm beside the GEMM.
  for (int i = 0; i < plan.op_count(); ++i) {
    const bool fused = (plan.is_layer() ? plan.ops[size_t(i)].method : plan.config.algorithm) == Algorithm::kFused;
    const OpKnobs k = plan.op_knobs(i);
    const std::string who = plan.is_layer() ? plan.ops[size_t(i)].name + ": " : std::string();
    if (fused && !model_.loopback) {
      const int comm_sms = sim::CommSms(topo_, k.comm_sms);
      if (comm_sms >= gpu_.sm_count) {
        return Status::Invalid(who + "fused: `comm_sms` " + std::to_string(comm_sms) +
                               " leaves no SMs for the GEMM on " + gpu_.name + " (" + std::to_string(gpu_.sm_count) +
                               " SMs); use fewer");
      }
    }
    if (k.sm_margin && sim::CommSms(topo_, k.margin_sms) >= gpu_.sm_count) {
      return Status::Invalid(who + "`sm_margin` keeps " + std::to_string(sim::CommSms(topo_, k.margin_sms)) +
                             " SMs from the GEMM, which leaves it none of " + gpu_.name + "'s " +
                             std::to_string(gpu_.sm_count));
    }
  }
  if (graph_built) {
    engine_->LoadWithBuiltGraph(plan);
  } else {
    engine_->Load(plan);
  }
  BRAID_RETURN_IF_ERROR(engine_->RunOnce());
  return int64_t(std::llround(engine_->makespan_ns()));
}

sim::RunErrorBand SimBackend::ErrorBand(const Plan& plan) const {
  return sim::ErrorBandOfRun(plan, gpu_, topo_, model_.loopback, [&](int rank, int step) {
    const int g = engine_->first_step(rank) + step;
    if (plan.ranks[size_t(rank)].steps[size_t(step)].kind == StepKind::kFused) {
      const sim::Engine::FusedSpan f = engine_->fused_span(g);
      return std::pair{f.gemm_start, std::max(f.gemm_end, f.comm_end)};
    }
    return std::pair{engine_->start_ns(g), engine_->end_ns(g)};
  });
}

Result<RunOutput> SimBackend::Run(const Plan& plan, const RunOptions& options) {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(options));
  // The check builds the plan's graph; the engine reuses it.
  BRAID_RETURN_IF_ERROR(CheckPlanStructure(plan, engine_->graph()));
  BRAID_ASSIGN_OR_RETURN(auto makespan, Simulate(plan, true));

  RunOutput out;
  out.compute_dtype = std::string(DTypeName(plan.workload.dtype));
  out.notes.push_back("sim computes no data: timings are simulated on " + gpu_.name + " / " + topo_.name);
  if (model_.loopback) {
    out.notes.push_back("loopback: all " + std::to_string(plan.tp()) + " ranks on one " + gpu_.name +
                        ", transfers as device copies");
    out.settings.emplace_back("loopback", 1);
  }
  const sim::RunErrorBand band = ErrorBand(plan);
  out.settings.emplace_back("error_band", band.relative);
  out.settings.emplace_back("error_band_assumed", band.assumed ? 1 : 0);
  if (options.verify) out.notes.push_back("verification does not apply to sim (sim computes no data)");
  out.iteration_ns.assign(size_t(options.iters), makespan);
  if (!options.trace) return out;
  // Streamed, each iteration's events are built, handed over and dropped;
  // otherwise they all collect in the output.
  const bool streamed = bool(options.on_iteration);
  std::vector<Event> streaming;
  std::vector<Event>& events = streamed ? streaming : out.events;
  events.reserve(size_t(streamed ? 1 : options.iters) * plan.total_steps());
  for (int it = 0; it < options.iters; ++it) {
    if (it > 0 && options.between_iterations) BRAID_RETURN_IF_ERROR(options.between_iterations());
    const int64_t offset = int64_t(it) * makespan;
    for (int r = 0; r < plan.tp(); ++r) {
      for (const Step& s : plan.ranks[size_t(r)].steps) {
        const int g = engine_->first_step(r) + s.id;
        if (s.kind == StepKind::kFused) {
          // Two events: the GEMM part on the step's lane, the transfers on
          // comm lane 1, so that overlap metrics see both.
          const sim::Engine::FusedSpan span = engine_->fused_span(g);
          Event e;
          e.iteration = it;
          e.rank = r;
          e.lane = s.lane;
          e.kind = EventKind::kCompute;
          e.name = "fused_gemm";
          e.start_ns = offset + int64_t(std::llround(span.gemm_start));
          e.end_ns = offset + int64_t(std::llround(span.gemm_end));
          e.flops = s.flops;
          e.chunk = s.chunk;
          e.correlation = s.match;
          Event c = e;
          c.lane = plan.lanes.size() > 1 ? 1 : s.lane;
          c.kind = EventKind::kComm;
          c.name = "fused_comm";
          c.start_ns = offset + int64_t(std::llround(span.comm_start));
          c.end_ns = offset + int64_t(std::llround(span.comm_end));
          c.flops = 0;
          c.bytes = s.bytes;
          events.push_back(std::move(e));
          events.push_back(std::move(c));
          continue;
        }
        events.push_back(EventOfStep(s, it, r, offset + int64_t(std::llround(engine_->start_ns(g))),
                                     offset + int64_t(std::llround(engine_->end_ns(g)))));
      }
    }
    if (streamed) {
      BRAID_RETURN_IF_ERROR(options.on_iteration(streaming));
      streaming.clear();
    }
  }
  return out;
}

Result<SimHardware> LoadSimHardware(const std::string& topology_name_or_file) {
  BRAID_ASSIGN_OR_RETURN(auto topo, LoadTopology(topology_name_or_file));
  auto gpu = LoadGpu(topo.gpu);
  if (!gpu.ok()) {
    return Status(gpu.status().code() == StatusCode::kNotFound
                      ? Status::NotFound("topology '" + topo.name + "': " + gpu.status().message())
                      : gpu.status());
  }
  return SimHardware{std::move(*gpu), std::move(topo)};
}

Result<std::unique_ptr<Backend>> MakeSimBackend(const std::string& topology_name_or_file) {
  BRAID_ASSIGN_OR_RETURN(auto hw, LoadSimHardware(topology_name_or_file));
  return std::unique_ptr<Backend>(std::make_unique<SimBackend>(std::move(hw.gpu), std::move(hw.topo)));
}

}  // namespace braid
