#include "fused_core_step.h"

#include <cstdio>
#include <limits>
#include <string>

#include "braid/core_schedule_check.h"
#include "braid/fused_schedule.h"
#include "gemm/scatter_tables.h"

namespace braid::cuda {

namespace {

std::string CoreRefusal(const std::string& why) { return "--fused-engine core: " + why; }

// The CTAs beside the GEMM (gemm_rs's reduce, ag_gemm's pulls by SMs), on
// SMs the GEMM's persistent grid leaves free: a GEMM CTA that could not be
// resident beside a spinning reduce would never finish the tiles the reduce
// waits for, and a pull that could not start would never raise the flags
// the GEMM waits for.
int CommCtas(int ranks, const FusedSettings& f) {
  return f.comm_sms > 0 ? f.comm_sms : fused::DefaultCommCtas(ranks, f.sms_per_rank);
}

bool IsAgGemm(const Step& s) { return s.collective == CollectiveKind::kAllGather; }

// ag_gemm's pulls: by copy engines when the plan says `comm_engine = ce`,
// else by a few CTAs of the pull kernel (the plan's default, SMs).
bool PullsBySms(const Plan& plan, const Step& s) {
  return IsAgGemm(s) && plan.config.comm_engine != CommEngine::kCopyEngine;
}

// The parts of a step's set-up both ops share: its stream, events and record.
Status SetUpCommon(RankState& st, const Step& s, const FusedSettings& f, CoreStepState& cs) {
  CudaApi& cuda = *st.api.cuda;
  cs.step = s.id;
  cs.never_set_flag = st.rank == f.never_set_rank ? f.never_set_flag : -1;
  BRAID_ASSIGN_OR_RETURN(cs.comm, cuda.CreateStream(0));
  BRAID_ASSIGN_OR_RETURN(cs.start, cuda.CreateEvent());
  BRAID_ASSIGN_OR_RETURN(cs.pulled, cuda.CreateEvent());
  BRAID_ASSIGN_OR_RETURN(cs.timed_out, st.api.core->NewTimeoutRecord());
  return Status::Ok();
}

// The core's stamps: `groups` groups, `group_of` the group of each hand-out
// position (a device array the caller uploaded).
Status SetUpTileTimes(RankState& st, const DeviceAlloc& alloc, int groups, const void* group_of, CoreStepState& cs) {
  const std::vector<uint64_t> none(size_t(groups), 0);
  BRAID_ASSIGN_OR_RETURN(cs.group_first, UploadVector(alloc, *st.api.cuda, none));
  BRAID_ASSIGN_OR_RETURN(cs.group_last, UploadVector(alloc, *st.api.cuda, none));
  cs.groups = groups;
  gemm::TileTimes& t = cs.launch.wait.times;
  t.group = static_cast<const int32_t*>(group_of);
  t.first_start = static_cast<uint64_t*>(cs.group_first);
  t.last_end = static_cast<uint64_t*>(cs.group_last);
  return Status::Ok();
}

void FillLaunch(RankState& st, const Step& s, const gemm::GemmPlan& planned, const FusedSettings& f,
                CoreGemmLaunch& l) {
  l.problem = planned.problem;
  l.device.arch = planned.config.arch;
  l.device.num_sms = planned.grid;  // re-planned by the launch: the same grid
  l.device.smem_optin = f.props.smem_optin;
  l.a = st.buffers[size_t(s.a.buffer)];
  l.b = st.buffers[size_t(s.b.buffer)];  // FP8: stored as bᵀ (TypeBuffers), as the core's FP8 path takes it
  l.c = st.buffers[size_t(s.c.buffer)];
  if (IsFp8(planned.problem.dtype)) {
    // The per-tensor dequantization factors, as the FP8 cuBLASLt step takes them (step_issue.cc).
    l.scales.a = static_cast<const float*>(st.ScaleOf(s.a.buffer));
    l.scales.b = static_cast<const float*>(st.ScaleOf(s.b.buffer));
  }
}

Status SetUpAgGemm(RankState& st, const Step& s, const gemm::GemmPlan& planned, const FusedSettings& f,
                   const fused::CoreRankSchedule& schedule, const DeviceAlloc& alloc, PeerMemory& peers,
                   CoreStepState& cs) {
  CudaApi& cuda = *st.api.cuda;
  cs.source_of_flag.assign(size_t(schedule.steps), st.rank);
  BRAID_ASSIGN_OR_RETURN(auto order, UploadVector(alloc, cuda, schedule.order));
  BRAID_ASSIGN_OR_RETURN(auto step_of, UploadVector(alloc, cuda, schedule.step));
  BRAID_ASSIGN_OR_RETURN(cs.flags, UploadVector(alloc, cuda, std::vector<uint32_t>(size_t(schedule.steps), 0u)));
  const DevPtr mine = st.buffers[size_t(s.a.buffer)];
  BRAID_ASSIGN_OR_RETURN(auto all, peers.PeerPointers({mine}));
  // Each pull is whole rows of its owner's block; the owner holds them in
  // its own gathered A at the same rows (its input block). FP8: one byte an element.
  const size_t row_bytes = size_t(planned.problem.k) * size_t(DTypeBytes(planned.problem.dtype));
  for (const fused::CorePull& pull : schedule.pulls) {
    if (all[0][size_t(pull.src)] == nullptr) {
      return Status::Unavailable(CoreRefusal("rank " + std::to_string(st.rank) + " cannot address rank " +
                                             std::to_string(pull.src) + "'s A (no peer access between their GPUs)"));
    }
    const size_t off = size_t(pull.row0) * row_bytes;
    cs.pulls.push_back({static_cast<char*>(mine) + off, static_cast<char*>(all[0][size_t(pull.src)]) + off,
                        size_t(pull.rows) * row_bytes, pull.flag});
    cs.source_of_flag[size_t(pull.flag)] = pull.src;
  }
  if (PullsBySms(*st.plan, s)) {
    std::vector<gemm::RowPull> device_pulls;
    for (const CoreStepState::Pull& p : cs.pulls) device_pulls.push_back({p.src, p.dst, int64_t(p.bytes), p.flag, 0});
    BRAID_ASSIGN_OR_RETURN(auto table, UploadVector(alloc, cuda, device_pulls));
    BRAID_ASSIGN_OR_RETURN(auto done, UploadVector(alloc, cuda, std::vector<uint32_t>(device_pulls.size(), 0u)));
    cs.sm_pulls = true;
    cs.comm_ctas = CommCtas(st.plan->tp(), f);
    gemm::RowPullLaunch& k = cs.pull_kernel;
    k.pulls = static_cast<const gemm::RowPull*>(table);
    k.count = int32_t(device_pulls.size());
    k.flags = static_cast<uint32_t*>(cs.flags);
    k.done = static_cast<uint32_t*>(done);
    k.never_set_flag = cs.never_set_flag;
  }
  CoreGemmLaunch& l = cs.launch;
  FillLaunch(st, s, planned, f, l);
  l.wait.order = static_cast<const int64_t*>(order);
  l.wait.step = static_cast<const int32_t*>(step_of);
  l.wait.flags = static_cast<const uint32_t*>(cs.flags);
  l.wait.timeout_ns = uint64_t(f.timeout_s * 0.5e9);
  l.wait.timed_out = cs.timed_out;
  // A group per arrival step: the step table is each hand-out position's.
  return f.stamp_tiles ? SetUpTileTimes(st, alloc, schedule.steps, step_of, cs) : Status::Ok();
}

Status SetUpGemmRs(RankState& st, const Step& s, const gemm::GemmPlan& planned, const FusedSettings& f,
                   const fused::CoreRankSchedule& schedule, const DeviceAlloc& alloc, PeerMemory& peers,
                   CoreStepState& cs) {
  CudaApi& cuda = *st.api.cuda;
  const int ranks = st.plan->tp();
  const gemm::TileScheduler& sched = planned.scheduler;
  const int64_t mb = planned.problem.m / ranks, n = planned.problem.n;
  const int64_t tiles_per_block = (mb / sched.tile_m) * sched.tiles_n();
  // The receive buffer: one slot of mb × n per source, which its epilogue
  // fills in the product's type (FP8: bf16, the scales already applied);
  // the counters: one per tile of this rank's block.
  const DType partial = GemmOutDType(planned.problem.dtype);
  BRAID_ASSIGN_OR_RETURN(DevPtr receive, alloc(size_t(ranks * mb * n) * size_t(DTypeBytes(partial))));
  BRAID_ASSIGN_OR_RETURN(DevPtr counters,
                         UploadVector(alloc, cuda, std::vector<uint32_t>(size_t(tiles_per_block), 0u)));
  BRAID_ASSIGN_OR_RETURN(
      cs.prime_counters,
      UploadVector(alloc, cuda, std::vector<uint32_t>(size_t(tiles_per_block), std::numeric_limits<uint32_t>::max())));
  BRAID_ASSIGN_OR_RETURN(auto order, UploadVector(alloc, cuda, schedule.order));
  BRAID_ASSIGN_OR_RETURN(auto all, peers.PeerPointers({receive, counters}));
  CoreGemmLaunch& l = cs.launch;
  FillLaunch(st, s, planned, f, l);
  l.c = nullptr;  // every tile goes to its owner's slot
  l.wait.order = static_cast<const int64_t*>(order);
  l.scatter.ranks = ranks;
  l.scatter.rank = st.rank;
  l.scatter.block_rows = mb;
  for (int q = 0; q < ranks; ++q) {
    if (all[0][size_t(q)] == nullptr || all[1][size_t(q)] == nullptr) {
      return Status::Unavailable(CoreRefusal("rank " + std::to_string(st.rank) + " cannot address rank " +
                                             std::to_string(q) +
                                             "'s receive buffer (no peer access between their GPUs)"));
    }
    l.scatter.slots[q] = all[0][size_t(q)];
    l.scatter.counters[q] = static_cast<uint32_t*>(all[1][size_t(q)]);
  }
  cs.reduce_scatter = true;
  cs.comm_ctas = CommCtas(ranks, f);
  gemm::PartialReduce& r = cs.reduce;
  r.ranks = ranks;
  r.rank = st.rank;
  r.block_rows = mb;
  r.n = n;
  r.tile_m = sched.tile_m;
  r.tile_n = sched.tile_n;
  r.group_m = sched.group_m;
  r.dtype = partial == DType::kFp16 ? 1 : 0;  // bf16 for FP8
  r.slots = receive;
  r.counters = static_cast<const uint32_t*>(counters);
  r.out = st.buffers[size_t(s.c.buffer)];
  r.timeout_ns = uint64_t(f.timeout_s * 0.5e9);
  r.timed_out = cs.timed_out;
  if (!f.stamp_tiles) return Status::Ok();
  // A group per owner: the rank whose block each handed-out tile's rows are.
  std::vector<int32_t> owner_of;
  owner_of.reserve(schedule.order.size());
  for (int64_t tile : schedule.order) owner_of.push_back(int32_t(sched.TileAt(tile).row0 / mb));
  BRAID_ASSIGN_OR_RETURN(auto owners, UploadVector(alloc, cuda, owner_of));
  return SetUpTileTimes(st, alloc, ranks, owners, cs);
}

}  // namespace

std::string CoreStepsNote(const Plan& plan, int sms_per_rank) {
  bool ag = false, rs = false;
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind != StepKind::kFused) continue;
      (IsAgGemm(s) ? ag : rs) = true;
    }
  }
  const bool ce = plan.config.comm_engine == CommEngine::kCopyEngine;
  std::string note = "fused on the GEMM core (--fused-engine core): " + std::to_string(sms_per_rank) + " SMs per rank";
  if (ag) note += ce ? "; ag_gemm pulls A by copy engines" : "; ag_gemm pulls A by the pull kernel's CTAs (comm_sms)";
  if (rs) {
    note += std::string("; gemm_rs sends its partials by the epilogue's peer stores") +
            (ce ? " (comm_engine ce does not apply to them)" : "") + " and reduces them beside the GEMM";
  }
  return note;
}

Result<gemm::GemmPlan> PlanCoreStep(const Plan& plan, const RankPlan& rp, const Step& s, const FusedSettings& f) {
  // FP8: A's type (TypeBuffers: the op's; B is E4M3). PlanGemm refuses
  // what the core's FP8 path cannot take (E5M2, sm_80, K or a leading
  // dimension off 16 bytes).
  const DType dtype = plan.op_workload(s.op).dtype;
  if (dtype == DType::kFp32) {
    return Status::Invalid(
        CoreRefusal("the fused plans on the GEMM core take bf16, fp16 or fp8_e4m3 (sm_90a) operands, not fp32"));
  }
  // What the step moves is what the core moves: ag_gemm pulls A in its own
  // type, gemm_rs scatters the GEMM's output type (FP8: bf16).
  const DType moves = IsAgGemm(s) ? dtype : GemmOutDType(dtype);
  if (plan.op_comm_dtype(s.op) != moves) {
    return Status::Invalid(CoreRefusal(
        std::string("the GEMM core's ") + (IsAgGemm(s) ? "ag_gemm pulls A" : "gemm_rs scatters its partials") + " in " +
        std::string(DTypeName(moves)) + ", not `comm_dtype` " + std::string(DTypeName(plan.op_comm_dtype(s.op)))));
  }
  const int ranks = plan.tp();
  if (ranks > gemm::kMaxScatterRanks) {
    return Status::Invalid(CoreRefusal("the fused plans on the GEMM core run at most " +
                                       std::to_string(gemm::kMaxScatterRanks) + " ranks, not " +
                                       std::to_string(ranks)));
  }
  auto arch = gemm::ArchForCapability(f.props.cc_major, f.props.cc_minor);
  if (!arch.ok()) return Status::Invalid(CoreRefusal(arch.status().message()));
  const BufferDecl& a = rp.buffers[size_t(s.a.buffer)];
  const BufferDecl& c = rp.buffers[size_t(s.c.buffer)];
  gemm::GemmProblem problem;
  problem.m = a.rows;  // ag_gemm: the gathered A; gemm_rs: the shard, all M rows
  problem.k = a.cols;
  problem.n = c.cols;
  problem.dtype = dtype;
  gemm::GemmDevice device;
  device.arch = *arch;
  device.num_sms = f.sms_per_rank;
  device.smem_optin = f.props.smem_optin;
  if (!IsAgGemm(s) || PullsBySms(plan, s)) {
    const int comm = CommCtas(ranks, f);
    if (comm >= f.sms_per_rank) {
      return Status::Invalid(CoreRefusal(std::string(IsAgGemm(s) ? "the pulls' " : "the reduce's ") +
                                         std::to_string(comm) + " CTAs (`comm_sms`) leave no SM for the GEMM (" +
                                         std::to_string(f.sms_per_rank) + " SMs per rank)"));
    }
    device.num_sms = f.sms_per_rank - comm;
  }
  auto planned = gemm::PlanGemm(problem, device);
  if (!planned.ok()) return Status::Invalid(CoreRefusal(planned.status().message()));
  if (!IsAgGemm(s)) {
    const Status tiles = gemm::ScatterTablesFor(planned->scheduler, ranks, 0).status();
    if (!tiles.ok()) return Status::Invalid(CoreRefusal(tiles.message()));
  }
  return planned;
}

Result<std::vector<fused::CoreRankSchedule>> ProvedCoreSchedules(const Plan& plan, const Step& s,
                                                                 const gemm::GemmPlan& planned) {
  const fused::FusedOp op = IsAgGemm(s) ? fused::FusedOp::kAgGemm : fused::FusedOp::kGemmRs;
  std::vector<fused::CoreRankSchedule> all;
  for (int r = 0; r < plan.tp(); ++r) {
    auto one = fused::BuildCoreSchedule(op, planned.scheduler, plan.tp(), r);
    if (!one.ok()) return Status::Invalid(CoreRefusal(one.status().message()));
    all.push_back(std::move(one).value());
  }
  BRAID_RETURN_IF_ERROR(fused::CheckCoreSchedule(op, planned.scheduler, plan.tp(), all));
  return all;
}

Status SetUpCoreSteps(RankState& st, const FusedSettings& f, const DeviceAlloc& alloc, PeerMemory& peers) {
  const RankPlan& rp = st.rank_plan();
  if (st.api.core == nullptr) return Status::Internal("the GEMM core seam is missing");
  for (const Step& s : rp.steps) {
    if (s.kind != StepKind::kFused) continue;
    BRAID_ASSIGN_OR_RETURN(const gemm::GemmPlan planned, PlanCoreStep(*st.plan, rp, s, f));
    BRAID_ASSIGN_OR_RETURN(const auto schedules, ProvedCoreSchedules(*st.plan, s, planned));
    const fused::CoreRankSchedule& mine = schedules[size_t(st.rank)];
    st.core.emplace_back();
    CoreStepState& cs = st.core.back();  // registered first, so a failure below still tears it down
    BRAID_RETURN_IF_ERROR(SetUpCommon(st, s, f, cs));
    BRAID_RETURN_IF_ERROR(IsAgGemm(s) ? SetUpAgGemm(st, s, planned, f, mine, alloc, peers, cs)
                                      : SetUpGemmRs(st, s, planned, f, mine, alloc, peers, cs));
  }
  return Status::Ok();
}

Status IssueCore(RankState& st, const Step& s, GpuStream lane, uint32_t epoch) {
  CudaApi& cuda = *st.api.cuda;
  for (const CoreStepState& cs : st.core) {
    if (cs.step != s.id) continue;
    // The pulls (or the reduce) start after the lane's earlier work: the
    // previous iteration's GEMM has read these rows of A before they are
    // rewritten, and the step's inputs are ready.
    BRAID_RETURN_IF_ERROR(cuda.Record(cs.start, lane));
    BRAID_RETURN_IF_ERROR(cuda.Wait(cs.comm, cs.start));
    CoreGemmLaunch l = cs.launch;
    if (cs.groups > 0) {
      // The stamps start over: every group's first start above any clock, its last end at zero.
      const size_t stamp_bytes = size_t(cs.groups) * sizeof(uint64_t);
      BRAID_RETURN_IF_ERROR(cuda.Memset(cs.group_first, 0xFF, stamp_bytes, lane));
      BRAID_RETURN_IF_ERROR(cuda.Memset(cs.group_last, 0, stamp_bytes, lane));
    }
    if (cs.reduce_scatter) {
      gemm::PartialReduce r = cs.reduce;
      r.epoch = epoch;
      BRAID_RETURN_IF_ERROR(st.api.core->LaunchReduce(r, cs.comm_ctas, cs.comm));
      // The test hook: this rank's partials never arrive, so its owners' reduces must time out.
      if (cs.never_set_flag < 0) BRAID_RETURN_IF_ERROR(st.api.core->Launch(l, lane));
    } else {
      if (cs.sm_pulls) {
        gemm::RowPullLaunch k = cs.pull_kernel;
        k.epoch = epoch;
        BRAID_RETURN_IF_ERROR(st.api.core->LaunchPulls(k, cs.comm_ctas, cs.comm));
      }
      for (const CoreStepState::Pull& p : cs.pulls) {
        if (cs.sm_pulls) break;
        BRAID_RETURN_IF_ERROR(cuda.Copy2D(p.dst, p.bytes, p.src, p.bytes, p.bytes, 1, cs.comm));
        if (p.flag == cs.never_set_flag) continue;  // the test hook: its tiles must time out
        // cuStreamWriteValue32 fences the copy before the write (no
        // NO_MEMORY_BARRIER flag): the flag never runs ahead of the rows.
        BRAID_RETURN_IF_ERROR(cuda.WriteFlag(static_cast<uint32_t*>(cs.flags) + p.flag, epoch, cs.comm));
      }
      l.wait.epoch = epoch;
      BRAID_RETURN_IF_ERROR(st.api.core->Launch(l, lane));
    }
    // The step ends when its pulls (or its reduce) did too: its done event is on the lane.
    BRAID_RETURN_IF_ERROR(cuda.Record(cs.pulled, cs.comm));
    return cuda.Wait(lane, cs.pulled);
  }
  return Status::Internal("fused step " + std::to_string(s.id) + " was not set up on the GEMM core");
}

Status PrimeCoreSteps(RankState& st, DevPtr copy_from, DevPtr copy_to, DevPtr flag) {
  for (const CoreStepState& cs : st.core) {
    const Step& s = st.rank_plan().steps[size_t(cs.step)];
    CoreGemmLaunch plain = cs.launch;
    plain.wait = {};
    plain.scatter = {};
    if (cs.reduce_scatter) {
      // The whole product fits the receive buffer (P slots of M/P rows).
      plain.c = const_cast<void*>(cs.reduce.slots);
      gemm::PartialReduce r = cs.reduce;
      r.counters = static_cast<const uint32_t*>(cs.prime_counters);  // always up: no wait
      r.epoch = 1;
      BRAID_RETURN_IF_ERROR(st.api.core->LaunchReduce(r, cs.comm_ctas, cs.comm));
    } else if (cs.sm_pulls) {
      gemm::RowPullLaunch none = cs.pull_kernel;
      none.count = 0;  // loads the kernel, moves nothing
      BRAID_RETURN_IF_ERROR(st.api.core->LaunchPulls(none, cs.comm_ctas, cs.comm));
    } else {
      BRAID_RETURN_IF_ERROR(st.api.cuda->Copy2D(copy_to, 16, copy_from, 16, 16, 1, cs.comm));
      BRAID_RETURN_IF_ERROR(st.api.cuda->WriteFlag(flag, 1, cs.comm));
    }
    BRAID_RETURN_IF_ERROR(st.api.core->Launch(plain, st.lanes[size_t(s.lane)]));
  }
  return Status::Ok();
}

std::vector<GpuStream> CoreStreams(const RankState& st) {
  std::vector<GpuStream> out;
  for (const CoreStepState& cs : st.core) {
    if (cs.comm != nullptr) out.push_back(cs.comm);
  }
  return out;
}

Status ReadTileGroups(RankState& st, int iteration) {
  CudaApi& cuda = *st.api.cuda;
  for (const CoreStepState& cs : st.core) {
    if (cs.groups == 0) continue;
    std::vector<uint64_t> first(size_t(cs.groups)), last(size_t(cs.groups));
    BRAID_RETURN_IF_ERROR(cuda.Download(first.data(), cs.group_first, first.size() * sizeof(uint64_t)));
    BRAID_RETURN_IF_ERROR(cuda.Download(last.data(), cs.group_last, last.size() * sizeof(uint64_t)));
    for (int g = 0; g < cs.groups; ++g) {
      TileGroupReading r;
      r.iteration = iteration;
      r.rank = st.rank;
      r.step = cs.step;
      r.group = g;
      r.reduce_scatter = cs.reduce_scatter;
      if (!cs.reduce_scatter && size_t(g) < cs.source_of_flag.size()) r.source = cs.source_of_flag[size_t(g)];
      r.first_start_ns = first[size_t(g)];
      r.last_end_ns = last[size_t(g)];
      st.tile_groups.push_back(r);
    }
  }
  return Status::Ok();
}

Status CheckCoreTimeouts(RankState& st, int iteration) {
  for (const CoreStepState& cs : st.core) {
    if (cs.timed_out == nullptr) continue;
    const uint32_t v = st.api.core->ReadTimeoutRecord(cs.timed_out);
    if (v == 0) continue;
    const Step& s = st.rank_plan().steps[size_t(cs.step)];
    char secs[32];
    const std::string head = st.StepName(s) + ", iteration " + std::to_string(iteration) + ": " + kCoreTimeoutWords;
    if (cs.reduce_scatter) {
      std::snprintf(secs, sizeof secs, "%g", double(cs.reduce.timeout_ns) / 1e9);
      const int64_t tiles_n = (cs.reduce.n + cs.reduce.tile_n - 1) / cs.reduce.tile_n;
      const int64_t counter = int64_t(v) - 1;
      return Status::Internal(head + "gemm_rs reduce timed out on rank " + std::to_string(st.rank) + " at tile (row " +
                              std::to_string(counter / tiles_n * cs.reduce.tile_m) + ", col " +
                              std::to_string(counter % tiles_n * cs.reduce.tile_n) +
                              ") of its block: not every rank's partial arrived within " + secs + " s");
    }
    std::snprintf(secs, sizeof secs, "%g", double(cs.launch.wait.timeout_ns) / 1e9);
    const int step = int(v) - 1;
    std::string from;
    if (step > 0 && size_t(step) < cs.source_of_flag.size())
      from = " (rank " + std::to_string(cs.source_of_flag[size_t(step)]) + "'s block)";
    return Status::Internal(head + "ag_gemm timed out on rank " + std::to_string(st.rank) +
                            " waiting for the rows of arrival step " + std::to_string(step) + from +
                            ": its flag was not raised within " + secs + " s");
  }
  return Status::Ok();
}

void TearDownCoreSteps(RankState& st) {
  CudaApi& cuda = *st.api.cuda;
  for (CoreStepState& cs : st.core) {
    if (cs.start != nullptr) (void)cuda.DestroyEvent(cs.start);
    if (cs.pulled != nullptr) (void)cuda.DestroyEvent(cs.pulled);
    if (cs.comm != nullptr) (void)cuda.DestroyStream(cs.comm);
    if (cs.timed_out != nullptr) st.api.core->FreeTimeoutRecord(cs.timed_out);
  }
  st.core.clear();
}

}  // namespace braid::cuda
