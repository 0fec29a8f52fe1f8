// One rank per process: agree on the checks (for --comm-engine ce also that
// every GPU maps every other's memory), run this rank through the same
// RankRunner as the in-process run (its Bootstrap is the launcher), verify
// this rank's outputs locally, then gather events and verdicts to rank 0
// with the cpu backend's wire format (braid/run_wire.h).
#include "process_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "braid/cpu_verify.h"
#include "braid/cuda_step_events.h"
#include "braid/launcher_bootstrap.h"
#include "braid/run_wire.h"
#include "braid/tile_group_events.h"
#include "op_knobs.h"
#include "rank_runner.h"
#include "wedge_guard.h"

namespace braid::cuda {

namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool Moves(const Plan& plan) {
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv || s.kind == StepKind::kCollective) return true;
    }
  }
  return false;
}

// What this process alone can check; the world agrees on it before running.
Status CheckLocally(const Plan& plan, const CudaBackendOptions& o, const CudaSeams& seams, const Launcher& world,
                    RunOutput& out, DeviceProps& props) {
  if (plan.tp() != world.world_size()) {
    return Status::Invalid("`tp` " + std::to_string(plan.tp()) + " must equal the number of MPI processes (" +
                           std::to_string(world.world_size()) + ")");
  }
  if (o.loopback) {
    return Status::Invalid("`loopback` runs every rank on one GPU in one process; run it without mpirun");
  }
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kFused) {
        return Status::Invalid(
            "`algorithm` fused between MPI processes needs its peer memory on NCCL windows, which the process mode "
            "does not set up yet; run it without mpirun (one process drives every local GPU)");
      }
    }
  }
  return CheckDevices(plan, o, *seams.cuda, out, props, world.local_rank());
}

bool CopyEngine(const Plan& plan) { return plan.config.comm_engine == CommEngine::kCopyEngine && Moves(plan); }

// --comm-engine ce: each rank copies into its peers' windows, so every GPU
// of the job must map every other's memory: one host, and every pair of its
// GPUs CUDA peers (NCCL's LSA team). Collective: every rank learns the first
// pair that cannot, before anything is allocated.
Status CheckPeersMapEachOther(CudaApi& cuda, Bootstrap& boot, const Launcher& world) {
  const std::string host = world.host_name();
  Bytes mine(host.begin(), host.end());
  mine.push_back(0);
  const int device = world.local_rank();
  for (int i = 0; i < 4; ++i) mine.push_back(uint8_t(uint32_t(device) >> (8 * i)));
  BRAID_ASSIGN_OR_RETURN(auto all, boot.AllGather(mine));
  Status verdict = Status::Ok();
  for (size_t q = 0; q < all.size() && verdict.ok(); ++q) {
    const Bytes& b = all[q];
    const auto nul = std::find(b.begin(), b.end(), uint8_t(0));
    if (b.end() - nul != 5)
      return Status::Internal("ce peer check: a damaged host record from rank " + std::to_string(q));
    const std::string their_host(b.begin(), nul);
    uint32_t their_device = 0;
    for (int i = 0; i < 4; ++i) their_device |= uint32_t(nul[1 + i]) << (8 * i);
    const std::string pair = "rank " + std::to_string(world.rank()) + " and rank " + std::to_string(q);
    if (their_host != host) {
      verdict = Status::Invalid("`comm_engine` ce needs every GPU to map its peers' memory, but " + pair +
                                " are on different hosts ('" + host + "', '" + their_host +
                                "'); use `comm_engine` sm across hosts");
    } else if (int(their_device) != device) {
      BRAID_ASSIGN_OR_RETURN(auto ok, cuda.CanAccessPeer(device, int(their_device)));
      if (!ok) {
        verdict = Status::Invalid("`comm_engine` ce needs peer access, and GPU " + std::to_string(device) + " (" +
                                  pair + ") cannot map GPU " + std::to_string(their_device) + "'s memory");
      }
    }
  }
  return verdict;
}

// This rank's outputs against references of their windows, each op with
// its own dtype- and K-dependent tolerance.
VerifyResult VerifyRank(const Plan& plan, int rank, const std::vector<HostMatrix>& a, const std::vector<HostMatrix>& b,
                        const RankResult& result, bool tf32) {
  VerifyResult v;
  v.ran = true;
  v.ok = true;
  v.worst_rank = rank;
  const RankPlan& rp = plan.ranks[size_t(rank)];
  const std::vector<OpOutput> outs = rp.Outputs();
  for (size_t i = 0; i < outs.size() && i < result.outputs.size(); ++i) {
    const OpOutput& o = outs[i];
    if (size_t(o.op) >= a.size() || a[size_t(o.op)].rows == 0) continue;
    const RankOutput mine{o.window, result.outputs[i].data(), rp.buffers[size_t(o.buffer)].cols};
    double e = WindowRelErrorFromInputs(a[size_t(o.op)], b[size_t(o.op)], mine);
    if (std::isnan(e)) e = INFINITY;
    const Workload& w = plan.op_workload(o.op);
    v.ok = v.ok && e <= CudaVerifyTolerance(w.dtype, w.k, plan.tp(), tf32);
    v.max_rel_error = std::max(v.max_rel_error, e);
  }
  return v;
}

// Rank 0: every rank's report merged into `out` (events shifted onto its
// tracer's clock) and the verdict over ranks.
Status MergeReports(const std::vector<Blob>& reports, const std::vector<ClockOffset>& offsets,
                    int64_t tracer_minus_steady, bool verify, RunOutput& out, wire::RunSummary& summary,
                    std::vector<std::string>& hosts) {
  for (size_t r = 0; r < reports.size(); ++r) {
    BRAID_ASSIGN_OR_RETURN(auto rep, wire::DecodeRankReport(reports[r]));
    hosts.push_back(rep.host);
    // Rank r's events arrive on its steady clock: to rank 0's steady clock, then to its tracer's.
    const int64_t shift = (r < offsets.size() ? offsets[r].offset_ns : 0) - tracer_minus_steady;
    for (Event& e : rep.events) {
      e.start_ns -= shift;
      e.end_ns -= shift;
      out.events.push_back(std::move(e));
    }
    if (!verify) continue;
    const VerifyResult& v = rep.verify;
    const bool ok_so_far = !summary.verify.ran || summary.verify.ok;
    if (!summary.verify.ran || !(v.max_rel_error <= summary.verify.max_rel_error)) {
      summary.verify = v;
      summary.verify.worst_rank = int(r);
    }
    summary.verify.ok = v.ok && ok_so_far;
  }
  std::stable_sort(out.events.begin(), out.events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.iteration, a.rank, a.start_ns, a.lane) < std::tie(b.iteration, b.rank, b.start_ns, b.lane);
  });
  return Status::Ok();
}

}  // namespace

Result<RunOutput> RunAsProcess(const Plan& plan, const RunOptions& options, const CudaBackendOptions& o,
                               const CudaSeams& seams, Launcher& world) {
  RunOutput out;
  DeviceProps props;
  BRAID_RETURN_IF_ERROR(AgreeOnStatus(world, CheckLocally(plan, o, seams, world, out, props)));
  const int p = plan.tp();
  const int rank = world.rank();
  std::vector<HostMatrix> a, b;
  std::vector<float> scales;
  MakeInputs(plan, options, a, b, scales);
  if (std::string note = Fp8ScalesNote(plan, options); !note.empty()) out.notes.push_back(std::move(note));
  std::vector<TransferLayout> layouts;
  for (const RankPlan& rp : plan.ranks) layouts.push_back(LayoutTransfers(rp, p));

  LauncherBootstrap boot(world);
  if (CopyEngine(plan)) {
    BRAID_RETURN_IF_ERROR(AgreeOnStatus(world, CheckPeersMapEachOther(*seams.cuda, boot, world)));
  }
  std::atomic<bool> failed{false};
  const int comm_sms = plan.config.comm_sms;
  BRAID_ASSIGN_OR_RETURN(auto targets, SmCountTargets(plan, props.sm_count));
  for (std::string& note : PerOpKnobNotes(plan)) out.notes.push_back(std::move(note));
  RankJob job{&plan,
              rank,
              world.local_rank(),
              p < 2 || !Moves(plan) ? Transport::kNone
              : CopyEngine(plan)    ? Transport::kFlags
                                    : Transport::kNccl,
              &layouts,
              &a,
              &b,
              &seams,
              &boot,
              &options,
              &o,
              targets,
              comm_sms,
              &failed,
              props.sm_count,  // fused steps are refused above
              /*owns_tracer=*/true};
  std::vector<RankProgress> progress(1);
  job.progress = &progress[0];
  job.scales = &scales;
  RankResult result;
  {
    const double deadline_s = WedgeDeadline(o, options);
    WedgeGuard guard(
        std::chrono::duration<double>(deadline_s), [&] { return DescribeWedge(plan, rank, progress, deadline_s); },
        EndWedgedProcess, [&] { return DescribeStall(plan, rank, progress, StallLimit(o), SteadyNowNs()); });
    result = RunRank(job);
  }
  BRAID_RETURN_IF_ERROR(result.status);

  wire::RankReport mine;
  mine.host = world.host_name();
  if (options.verify) mine.verify = VerifyRank(plan, rank, a, b, result, o.tf32);
  std::vector<ClockOffset> offsets;
  int64_t tracer_minus_steady = 0;
  bool tracer_clock = false;
  if (options.trace) {
    BRAID_ASSIGN_OR_RETURN(auto measured, world.MeasureClockOffsets(kClockRounds));
    offsets = std::move(measured);
    if (auto now = seams.tracer->NowNs(); now.ok()) {
      tracer_minus_steady = *now - SteadyNs();
      tracer_clock = true;
    }
    const std::vector<Event> records = seams.tracer->TakeEvents();
    mine.events = StepEvents(plan, records);
    AddTileGroupEvents(plan, records, result.tile_groups, mine.events);
    for (Event& e : mine.events) {
      e.start_ns -= tracer_minus_steady;
      e.end_ns -= tracer_minus_steady;
    }
  }
  BRAID_ASSIGN_OR_RETURN(auto reports, world.Gather(wire::EncodeRankReport(mine)));

  wire::RunSummary summary{result.iteration_ns, {}};
  std::vector<std::string> hosts;
  if (world.is_root()) {
    BRAID_RETURN_IF_ERROR(MergeReports(reports, offsets, tracer_minus_steady, options.verify, out, summary, hosts));
  }
  Blob shared = wire::EncodeRunSummary(summary);
  BRAID_RETURN_IF_ERROR(world.Broadcast(shared));
  BRAID_ASSIGN_OR_RETURN(auto agreed, wire::DecodeRunSummary(shared));
  out.iteration_ns = std::move(agreed.iteration_ns);
  out.verify = agreed.verify;

  out.compute_dtype = std::string(DTypeName(plan.workload.dtype));
  if (plan.workload.dtype == DType::kFp32 && o.tf32) out.compute_dtype = "tf32";
  out.settings.emplace_back("loopback", 0);
  out.settings.emplace_back("timeout_s", o.timeout_s);
  if (!plan.is_layer() && targets[0] > 0) out.settings.emplace_back("gemm_sm_count_target", targets[0]);
  if (world.is_root()) {
    std::string note = std::to_string(p) + " ranks as MPI processes, each on its local GPU; hosts by rank:";
    for (const std::string& h : hosts) note += " " + h;
    out.notes.push_back(note);
    if (job.transport == Transport::kFlags) {
      out.notes.push_back(
          "transfers ran as copy-engine copies into the peers' NCCL symmetric windows with stream-ordered flags");
    }
    if (options.trace) {
      out.notes.push_back(ClockAlignmentNote(
          offsets, kClockRounds, tracer_clock ? " (each tracer's clock read against its host's steady clock)" : ""));
      const size_t expected = plan.total_steps() * size_t(options.iters);
      const size_t steps = size_t(std::count_if(out.events.begin(), out.events.end(), IsStepEvent));
      if (steps < expected) {
        out.notes.push_back("tracer: " + std::to_string(expected - steps) + " of " + std::to_string(expected) +
                            " step executions have no GPU activity record");
      }
    }
  }
  return out;
}

}  // namespace braid::cuda
