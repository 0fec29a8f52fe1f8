#include "braid/cpu_process_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <tuple>

#include "blas_library.h"
#include "block_inputs.h"
#include "braid/cpu_verify.h"
#include "braid/plan_check.h"
#include "braid/run_options_check.h"
#include "braid/run_wire.h"
#include "fp8_inputs.h"
#include "rank_memory.h"
#include "run_inputs.h"
#include "run_plan.h"

namespace braid {

namespace {

// This rank's outputs against references of their windows (A·B of its op:
// verifying a layer, the block's reference product); the worst op decides.
VerifyResult VerifyRank(const Plan& plan, int rank, const cpu::RunInputs& in, const cpu::RankMemory& memory,
                        const std::vector<WireFormat>& wires) {
  const RankPlan& rp = plan.ranks[size_t(rank)];
  VerifyResult v;
  v.ran = true;
  v.ok = true;
  v.worst_rank = rank;
  for (const OpOutput& o : rp.Outputs()) {
    if (size_t(o.op) >= in.a.size() || in.a[size_t(o.op)].rows == 0) continue;
    const RankOutput out{o.window, memory.data(o.buffer), rp.buffers[size_t(o.buffer)].cols};
    const double e = WindowRelErrorFromInputs(in.a[size_t(o.op)], in.b[size_t(o.op)], out);
    if (!(e <= v.max_rel_error)) v.max_rel_error = std::isnan(e) ? INFINITY : e;
    const WireFormat wire = size_t(o.op) < wires.size() ? wires[size_t(o.op)] : WireFormat{};
    v.ok = v.ok && e <= WireVerifyTolerance(wire, plan.tp());
  }
  return v;
}

std::string HostsNote(const std::vector<std::string>& hosts) {
  std::string s = std::to_string(hosts.size()) + " ranks as MPI processes; hosts by rank:";
  for (const std::string& h : hosts) s += " " + h;
  return s;
}

}  // namespace

NodeLinks NodeLinksOf(const Topology& topo) {
  NodeLinks n;
  // The slow link is between NVLink domains (a node, unless a rack's trays share one).
  if (topo.domains() > 1 && topo.intra.bandwidth_gbs > 0 && topo.inter.bandwidth_gbs > 0) {
    n.ranks_per_node = topo.domain_gpus();
    n.bandwidth_ratio = topo.inter.bandwidth_gbs / topo.intra.bandwidth_gbs;
    n.latency_ratio = topo.intra.latency_us > 0 ? topo.inter.latency_us / topo.intra.latency_us : 1;
  }
  return n;
}

Status CpuProcessBackend::CheckLocally(const Plan& plan, const RunOptions& options) const {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(options));
  BRAID_RETURN_IF_ERROR(CheckCpuBackendOptions(options_));
  if (plan.tp() != launcher_->world_size()) {
    return Status::Invalid("`tp` " + std::to_string(plan.tp()) + " must equal the number of MPI processes (" +
                           std::to_string(launcher_->world_size()) + ")");
  }
  BRAID_RETURN_IF_ERROR(CheckPlanStructure(plan));
  BRAID_RETURN_IF_ERROR(cpu::LoadBlas());  // every rank agrees, so one without it stops them all
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kFused) {
        return Status::Invalid("fused runs on the sim backend; the cpu backend has no fused kernel");
      }
    }
  }
  // This process holds one rank's buffers but every op's whole A and B.
  return cpu::CheckMemory(cpu::RunBytes(plan, options.verify, launcher_->rank()));
}

Result<RunOutput> CpuProcessBackend::Run(const Plan& plan, const RunOptions& options) {
  Status local;
  try {
    local = CheckLocally(plan, options);
  } catch (const std::exception& e) {
    local = Status::Internal(std::string("cpu backend: ") + e.what());
  }
  BRAID_RETURN_IF_ERROR(AgreeOnStatus(*launcher_, local));
  try {
    return RunChecked(plan, options);
  } catch (const std::bad_alloc&) {
    return Status::Internal("cpu backend: rank " + std::to_string(launcher_->rank()) + " out of memory for " +
                            plan.workload.Describe());
  } catch (const std::exception& e) {
    return Status::Internal("cpu backend: rank " + std::to_string(launcher_->rank()) + ": " + e.what());
  }
}

namespace {

// Buffers that must outlive every object of the run: reachable from here
// until the process ends, on purpose.
void KeepUntilExit(std::vector<cpu::RankMemory> memory) {
  static auto* kept = new std::vector<std::vector<cpu::RankMemory>>();
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(std::move(memory));
}

}  // namespace

Result<RunOutput> CpuProcessBackend::RunChecked(const Plan& plan, const RunOptions& options) {
  Launcher& world = *launcher_;
  const int rank = world.rank();
  const RankPlan& rp = plan.ranks[size_t(rank)];
  cpu::SetBlasThreads(1);  // ranks share the host's cores
  // Verifying, a layer's inputs are one block's (block_inputs.h): every
  // process computes the same ones, so each rank's windows are that block's.
  const cpu::Fp8Scaling scaling = cpu::Fp8ScalingOf(options);
  cpu::RunInputs inputs = cpu::MakeRunInputs(plan, options.seed, options.verify, scaling);
  const std::vector<WireFormat> wires = cpu::RunWireFormats(plan, inputs);
  std::vector<cpu::RankMemory> memory;
  memory.emplace_back(rp, inputs.a, inputs.b);
  if (!options.verify) inputs = {};

  Result<std::unique_ptr<Transport>> transport =
      factory_ ? factory_(plan, rank, options_) : Status::Internal("cpu backend: no transport factory");
  BRAID_RETURN_IF_ERROR(AgreeOnStatus(world, transport.status()));

  RunOutput out;
  const cpu::RankRange range{rank, 1, [&world] { return world.Barrier(); }};
  if (Status ran = cpu::ExecutePlan(plan, options, memory, **transport, out, range, wires); !ran.ok()) {
    // A send left in flight from the rank's buffers may still be read by
    // MPI: they are kept until the process ends (through the launcher's
    // MPI_Abort), never freed under it.
    if ((**transport).HoldsCallerMemory()) KeepUntilExit(std::move(memory));
    return ran;
  }
  transport->reset();  // waits for this rank's last sends

  wire::RankReport mine;
  mine.host = world.host_name();
  if (options.verify) mine.verify = VerifyRank(plan, rank, inputs, memory[0], wires);
  std::vector<ClockOffset> offsets;
  if (options.trace) {
    BRAID_ASSIGN_OR_RETURN(auto measured, world.MeasureClockOffsets(kClockRounds));
    offsets = std::move(measured);
    mine.events = std::move(out.events);
  }
  out.events.clear();
  BRAID_ASSIGN_OR_RETURN(auto reports, world.Gather(wire::EncodeRankReport(mine)));

  wire::RunSummary summary{out.iteration_ns, {}};
  std::vector<std::string> hosts;
  if (world.is_root()) {
    for (size_t r = 0; r < reports.size(); ++r) {
      BRAID_ASSIGN_OR_RETURN(auto rep, wire::DecodeRankReport(reports[r]));
      hosts.push_back(rep.host);
      const int64_t shift = r < offsets.size() ? offsets[r].offset_ns : 0;
      for (Event& e : rep.events) {
        e.start_ns -= shift;
        e.end_ns -= shift;
        out.events.push_back(std::move(e));
      }
      const VerifyResult& v = rep.verify;
      if (!options.verify) continue;
      if (!summary.verify.ran || !(v.max_rel_error <= summary.verify.max_rel_error)) {
        const bool ok_so_far = !summary.verify.ran || summary.verify.ok;
        summary.verify = v;
        summary.verify.worst_rank = int(r);
        summary.verify.ok = v.ok && ok_so_far;
      } else {
        summary.verify.ok = summary.verify.ok && v.ok;
      }
    }
    std::stable_sort(out.events.begin(), out.events.end(), [](const Event& a, const Event& b) {
      return std::tie(a.iteration, a.rank, a.start_ns, a.lane) < std::tie(b.iteration, b.rank, b.start_ns, b.lane);
    });
  }
  Blob shared = wire::EncodeRunSummary(summary);
  BRAID_RETURN_IF_ERROR(world.Broadcast(shared));
  BRAID_ASSIGN_OR_RETURN(auto agreed, wire::DecodeRunSummary(shared));
  out.iteration_ns = std::move(agreed.iteration_ns);
  out.verify = agreed.verify;

  out.compute_dtype = "fp32";
  if (options_.link_gbps > 0) {
    out.settings.emplace_back("link_gbps", options_.link_gbps);
    out.settings.emplace_back("link_latency_us", options_.link_latency_us);
  }
  if (const std::string note = cpu::CpuDTypeNote(plan, wires, scaling); !note.empty()) out.notes.push_back(note);
  if (const std::string block = cpu::BlockNote(inputs); !block.empty()) out.notes.push_back(block);
  if (world.is_root()) {
    out.notes.push_back(HostsNote(hosts));
    if (options.trace) out.notes.push_back(ClockAlignmentNote(offsets, kClockRounds, ""));
  }
  return out;
}

}  // namespace braid
