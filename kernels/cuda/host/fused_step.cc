#include "fused_step.h"

#include <cstdio>

#include "braid/cuda_backend.h"
#include "braid/fused_schedule_check.h"
#include "fused_core_step.h"

namespace braid::cuda {

using fused::FusedShape;

fused::FusedShape FusedShapeOf(const Plan& plan, const RankPlan& rp, const Step& s, const FusedSettings& f) {
  FusedShape shape;
  shape.op = s.collective == CollectiveKind::kAllGather ? fused::FusedOp::kAgGemm : fused::FusedOp::kGemmRs;
  shape.ranks = plan.tp();
  const BufferDecl& a = rp.buffers[size_t(s.a.buffer)];
  const BufferDecl& c = rp.buffers[size_t(s.c.buffer)];
  shape.m = a.rows;  // ag_gemm: the gathered A; gemm_rs: the shard, all M rows
  shape.k = a.cols;
  shape.n = c.cols;
  shape.comm_ctas = f.comm_sms > 0 ? f.comm_sms : fused::DefaultCommCtas(shape.ranks, f.sms_per_rank);
  shape.compute_ctas = f.sms_per_rank - shape.comm_ctas;
  return shape;
}

bool HasFusedSteps(const Plan& plan) {
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kFused) return true;
    }
  }
  return false;
}

Status CheckFusedPlan(const Plan& plan, const FusedSettings& f) {
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind != StepKind::kFused) continue;
      // Each step's schedule is proved before anything is allocated: the
      // same tables the ranks will upload (fused_schedule_check.h,
      // core_schedule_check.h).
      if (f.engine == FusedEngine::kCore) {
        BRAID_ASSIGN_OR_RETURN(const gemm::GemmPlan planned, PlanCoreStep(plan, rp, s, f));
        BRAID_RETURN_IF_ERROR(ProvedCoreSchedules(plan, s, planned).status());
        continue;
      }
      const FusedShape shape = FusedShapeOf(plan, rp, s, f);
      if (rp.buffers[size_t(s.a.buffer)].rows !=
          rp.buffers[size_t(s.c.buffer)].rows * (shape.op == fused::FusedOp::kAgGemm ? 1 : shape.ranks)) {
        return Status::Invalid("the fused kernel needs the whole gathered A and output buffers");
      }
      BRAID_RETURN_IF_ERROR(fused::CheckFusedShape(shape, plan.op_workload(s.op).dtype, f.sms_per_rank));
      BRAID_RETURN_IF_ERROR(fused::CheckFusedSchedule(shape, fused::BuildAllTables(shape)));
    }
  }
  if (f.never_set_rank >= plan.tp()) {
    return Status::Invalid("BRAID_FUSED_NEVER_SET names rank " + std::to_string(f.never_set_rank) + " of a " +
                           std::to_string(plan.tp()) + "-rank run");
  }
  return Status::Ok();
}

namespace {

Result<DevPtr> Zeroed(const DeviceAlloc& alloc, CudaApi& cuda, size_t bytes) {
  return UploadVector(alloc, cuda, std::vector<uint8_t>(std::max<size_t>(bytes, 4), 0));
}

}  // namespace

Status SetUpFusedSteps(RankState& st, const FusedSettings& f, const DeviceAlloc& alloc, PeerMemory& peers,
                       std::vector<FusedStepState>& out) {
  const RankPlan& rp = st.rank_plan();
  CudaApi& cuda = *st.api.cuda;
  for (const Step& s : rp.steps) {
    if (s.kind != StepKind::kFused) continue;
    const FusedShape shape = FusedShapeOf(*st.plan, rp, s, f);
    const fused::RankTables tables = fused::BuildRankTables(shape, st.rank);
    FusedStepState fs;
    fs.step = s.id;
    FusedLaunch& l = fs.launch;
    l.op = shape.op == fused::FusedOp::kAgGemm ? 0 : 1;
    l.rank = st.rank;
    l.ranks = shape.ranks;
    l.m = int32_t(shape.m);
    l.n = int32_t(shape.n);
    l.k = int32_t(shape.k);
    l.dtype = st.dtype == DType::kFp16 ? 1 : 0;
    l.ctas = tables.ctas();
    l.timeout_ns = uint64_t(f.timeout_s * 0.5e9);
    l.never_set_flag = st.rank == f.never_set_rank ? f.never_set_flag : -1;
    BRAID_ASSIGN_OR_RETURN(auto tasks, UploadVector(alloc, cuda, tables.tasks));
    BRAID_ASSIGN_OR_RETURN(auto waits, UploadVector(alloc, cuda, tables.waits));
    BRAID_ASSIGN_OR_RETURN(auto begin, UploadVector(alloc, cuda, tables.cta_begin));
    BRAID_ASSIGN_OR_RETURN(auto flags, Zeroed(alloc, cuda, size_t(tables.flags) * sizeof(uint32_t)));
    BRAID_ASSIGN_OR_RETURN(auto error, Zeroed(alloc, cuda, sizeof(fused::FusedError)));
    DevPtr partial = nullptr;
    if (l.op == 1) {
      BRAID_ASSIGN_OR_RETURN(auto p, alloc(size_t(shape.m * shape.n) * st.esize));
      partial = p;
    }
    l.tasks = static_cast<const fused::FusedTask*>(tasks);
    l.waits = static_cast<const fused::FlagRef*>(waits);
    l.cta_begin = static_cast<const int32_t*>(begin);
    l.b = st.buffers[size_t(s.b.buffer)];
    l.out = st.buffers[size_t(s.c.buffer)];
    l.error = static_cast<fused::FusedError*>(error);
    fs.error = error;
    // Every rank's A, partial and flags, as this rank addresses them.
    BRAID_ASSIGN_OR_RETURN(auto all, peers.PeerPointers({st.buffers[size_t(s.a.buffer)], partial, flags}));
    for (int q = 0; q < shape.ranks; ++q) {
      l.a[q] = all[0][size_t(q)];
      l.partial[q] = all[1][size_t(q)];
      l.flags[q] = static_cast<uint32_t*>(all[2][size_t(q)]);
    }
    out.push_back(fs);
  }
  return Status::Ok();
}

Status IssueFused(RankState& st, const Step& s, GpuStream lane, uint32_t epoch) {
  if (st.api.fused == nullptr) return Status::Internal("the fused kernel seam is missing");
  for (const FusedStepState& fs : st.fused) {
    if (fs.step != s.id) continue;
    FusedLaunch l = fs.launch;
    l.epoch = epoch;
    return st.api.fused->Launch(l, lane);
  }
  return Status::Internal("fused step " + std::to_string(s.id) + " was not set up");
}

Status CheckFusedErrors(RankState& st, int iteration) {
  for (const FusedStepState& fs : st.fused) {
    fused::FusedError e;
    BRAID_RETURN_IF_ERROR(st.api.cuda->Download(&e, fs.error, sizeof e));
    if (e.code == 0) continue;
    const Step& s = st.rank_plan().steps[size_t(fs.step)];
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", double(fs.launch.timeout_ns) / 1e9);
    return Status::Internal(st.StepName(s) + ", iteration " + std::to_string(iteration) + ": the fused " +
                            (fs.launch.op == 0 ? "ag_gemm" : "gemm_rs") + " kernel timed out on rank " +
                            std::to_string(e.rank) + " at tile (row " + std::to_string(e.row0) + ", col " +
                            std::to_string(e.col0) + "), task " + std::to_string(e.task) + ": flag " +
                            std::to_string(e.flag_index) + " of rank " + std::to_string(e.flag_rank) +
                            " was not raised within " + secs + " s");
  }
  return Status::Ok();
}

}  // namespace braid::cuda

namespace braid {

Status ReadFusedTestHook(const char* env_value, CudaBackendOptions& o) {
  if (env_value == nullptr || *env_value == '\0') return Status::Ok();
  int rank = -1, flag = -1;
  char tail = 0;
  if (std::sscanf(env_value, "%d:%d%c", &rank, &flag, &tail) != 2 || rank < 0 || flag < 0) {
    return Status::Invalid(std::string("BRAID_FUSED_NEVER_SET must be RANK:FLAG, two numbers (got '") + env_value +
                           "')");
  }
  o.fused_never_set_rank = rank;
  o.fused_never_set_flag = flag;
  return Status::Ok();
}

}  // namespace braid
