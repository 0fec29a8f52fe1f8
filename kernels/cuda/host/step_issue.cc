// One plan step → the CUDA / cuBLASLt / NCCL calls that perform it, on the
// step's lane stream (and the lane's send queue for NCCL sends). Every step
// ends by recording its `done` event on its lane.
#include <string>
#include <vector>

#include "braid/compute_stand_in.h"
#include "fused_core_step.h"
#include "fused_step.h"
#include "rank_state.h"
#include "region_runs.h"

namespace braid::cuda {

DevPtr RankState::Row(BufferId b, int64_t row) const {
  return static_cast<char*>(buffers[size_t(b)]) + size_t(row) * RowBytes(b);
}

size_t RankState::RowBytes(BufferId b) const {
  return size_t(rank_plan().buffers[size_t(b)].cols) * size_t(DTypeBytes(TypeOf(b)));
}

std::string RankState::StepName(const Step& s) const {
  return "rank " + std::to_string(rank) + " step " + std::to_string(s.id) + " '" + s.name + "'";
}

namespace {

DevPtr Offset(DevPtr p, int64_t elems, size_t esize) { return static_cast<char*>(p) + size_t(elems) * esize; }
DevPtr FlagAt(DevPtr flags, int index) { return static_cast<char*>(flags) + size_t(index) * sizeof(uint32_t); }

// Piece q of a region holding P equal pieces (P pieces, or one contiguous run).
Result<Region> PieceOf(const Region& r, int q, int ranks) {
  if (r.pieces == ranks) return Region::Rows(r.buffer, r.piece_row(q), r.rows);
  if (r.pieces == 1 && r.rows % ranks == 0) {
    const int64_t n = r.rows / ranks;
    return Region::Rows(r.buffer, r.row + q * n, n);
  }
  return Status::Internal("a collective region of " + std::to_string(r.pieces) + " pieces cannot be cut into " +
                          std::to_string(ranks));
}

Status CopyRegion(RankState& st, const Region& dst, const Region& src, GpuStream s) {
  if (dst.buffer == src.buffer && dst.row == src.row && dst.rows == src.rows && dst.pieces == src.pieces &&
      dst.stride == src.stride) {
    return Status::Ok();  // in place
  }
  const size_t row_bytes = st.RowBytes(dst.buffer);
  for (const RowRun& run : RowRuns({dst, src})) {
    const size_t bytes = size_t(run.rows) * row_bytes;
    BRAID_RETURN_IF_ERROR(
        st.api.cuda->Copy2D(st.Row(dst.buffer, run.row[0]), bytes, st.Row(src.buffer, run.row[1]), bytes, bytes, 1, s));
  }
  return Status::Ok();
}

// flat[0 ..) = rows of src, packed.
Status CopyRegionToFlat(RankState& st, DevPtr flat, const Region& src, GpuStream s) {
  const size_t row_bytes = st.RowBytes(src.buffer);
  char* at = static_cast<char*>(flat);
  for (const RowRun& run : RowRuns({src})) {
    const size_t bytes = size_t(run.rows) * row_bytes;
    BRAID_RETURN_IF_ERROR(st.api.cuda->Copy2D(at, bytes, st.Row(src.buffer, run.row[0]), bytes, bytes, 1, s));
    at += bytes;
  }
  return Status::Ok();
}

Status CopyFlatToRegion(RankState& st, const Region& dst, DevPtr flat, GpuStream s) {
  const size_t row_bytes = st.RowBytes(dst.buffer);
  char* at = static_cast<char*>(flat);
  for (const RowRun& run : RowRuns({dst})) {
    const size_t bytes = size_t(run.rows) * row_bytes;
    BRAID_RETURN_IF_ERROR(st.api.cuda->Copy2D(st.Row(dst.buffer, run.row[0]), bytes, at, bytes, bytes, 1, s));
    at += bytes;
  }
  return Status::Ok();
}

// c += flat (packed rows).
Status AddFlatInto(RankState& st, const Region& c, DevPtr flat, GpuStream s) {
  const DType type = st.TypeOf(c.buffer);  // bf16 at most (TypeBuffers refuses FP8 sums)
  const size_t row_elems = size_t(st.rank_plan().buffers[size_t(c.buffer)].cols);
  char* at = static_cast<char*>(flat);
  for (const RowRun& run : RowRuns({c})) {
    const size_t n = size_t(run.rows) * row_elems;
    DevPtr dst = st.Row(c.buffer, run.row[0]);
    BRAID_RETURN_IF_ERROR(st.api.cuda->Add(dst, dst, at, n, type, s));
    at += n * size_t(DTypeBytes(type));
  }
  return Status::Ok();
}

Status Gemm(RankState& st, const Step& s, GpuStream stream) {
  const BufferDecl& b = st.rank_plan().buffers[size_t(s.b.buffer)];
  const BufferDecl& a = st.rank_plan().buffers[size_t(s.a.buffer)];
  const BufferDecl& c = st.rank_plan().buffers[size_t(s.c.buffer)];
  for (int p = 0; p < s.a.pieces; ++p) {
    MatmulArgs m;
    m.m = s.a.rows;
    m.n = b.cols;
    m.k = b.rows;
    m.a = st.Row(s.a.buffer, s.a.piece_row(p));
    m.lda = a.cols;
    m.b = st.buffers[size_t(s.b.buffer)];
    m.ldb = b.cols;
    m.c = st.Row(s.c.buffer, s.c.piece_row(p < s.c.pieces ? p : 0));
    m.ldc = c.cols;
    m.dtype = st.TypeOf(s.a.buffer);
    m.sm_count_target = st.SmCountTargetOf(s.op);
    m.tf32 = st.tf32;
    m.accumulate = s.accumulate;
    if (IsFp8(m.dtype)) {
      // B stored as Bᵀ (n×k); per-tensor dequantization factors.
      m.ldb = b.rows;
      m.fp8.b = st.TypeOf(s.b.buffer);
      m.fp8.a_scale = st.ScaleOf(s.a.buffer);
      m.fp8.b_scale = st.ScaleOf(s.b.buffer);
    }
    if (m.m > 0) BRAID_RETURN_IF_ERROR(st.api.blas->Matmul(m, stream));
  }
  return Status::Ok();
}

// An attention-like compute step: GEMMs of the same FLOPs on scratch
// operands (braid/compute_stand_in.h: few and large, as fast as attention).
Status Compute(RankState& st, const Step& s, GpuStream stream) {
  const ComputeStandIn shape = StandInFor(s.flops);
  for (int64_t t = 0; t < shape.count; ++t) {
    MatmulArgs m;
    m.m = shape.m, m.n = shape.n, m.k = shape.k;
    m.lda = shape.k, m.ldb = shape.n, m.ldc = shape.n;
    m.a = st.scratch[0];
    m.b = st.scratch[1];
    m.c = st.scratch[2];
    m.dtype = st.dtype;
    m.sm_count_target = st.SmCountTargetOf(s.op);
    m.tf32 = st.tf32;
    BRAID_RETURN_IF_ERROR(st.api.blas->Matmul(m, stream));
  }
  return Status::Ok();
}

Status Reduce(RankState& st, const Step& s, GpuStream stream) {
  const size_t row_elems = size_t(st.rank_plan().buffers[size_t(s.c.buffer)].cols);
  for (const RowRun& run : RowRuns({s.c, s.a, s.b})) {
    BRAID_RETURN_IF_ERROR(st.api.cuda->Add(st.Row(s.c.buffer, run.row[0]), st.Row(s.a.buffer, run.row[1]),
                                           st.Row(s.b.buffer, run.row[2]), size_t(run.rows) * row_elems,
                                           st.TypeOf(s.c.buffer), stream));
  }
  return Status::Ok();
}

// --- NCCL transport ---

Status NcclSend(RankState& st, const Step& s, GpuStream lane) {
  const RankPlan& rp = st.rank_plan();
  DevPtr stage = Offset(st.stage, st.layout().stage_off[size_t(s.id)], st.esize);
  BRAID_RETURN_IF_ERROR(CopyRegionToFlat(st, stage, s.a, lane));
  // Done for the plan once staged: the send itself runs on the send queue,
  // so no later step of this lane waits for the receiver (eager send).
  BRAID_RETURN_IF_ERROR(st.api.cuda->Record(st.done[size_t(s.id)], lane));
  GpuStream q = st.send_queue[size_t(s.lane)];
  BRAID_RETURN_IF_ERROR(st.api.cuda->Wait(q, st.done[size_t(s.id)]));
  return st.api.nccl->Send(stage, size_t(RegionElems(rp, s.a)), st.TypeOf(s.a.buffer), s.peer, st.comm, q);
}

Status NcclRecv(RankState& st, const Step& s, GpuStream lane) {
  const size_t n = size_t(RegionElems(st.rank_plan(), s.c));
  const DType type = st.TypeOf(s.c.buffer);
  if (Contiguous(s.c)) return st.api.nccl->Recv(st.Row(s.c.buffer, s.c.row), n, type, s.peer, st.comm, lane);
  DevPtr stage = Offset(st.stage, st.layout().stage_off[size_t(s.id)], st.esize);
  BRAID_RETURN_IF_ERROR(st.api.nccl->Recv(stage, n, type, s.peer, st.comm, lane));
  return CopyFlatToRegion(st, s.c, stage, lane);
}

Status NcclCollective(RankState& st, const Step& s, GpuStream lane) {
  const RankPlan& rp = st.rank_plan();
  DevPtr stage = Offset(st.stage, st.layout().stage_off[size_t(s.id)], st.esize);
  DevPtr send = st.Row(s.a.buffer, s.a.row);
  if (!Contiguous(s.a)) {
    BRAID_RETURN_IF_ERROR(CopyRegionToFlat(st, stage, s.a, lane));
    send = stage;
  }
  DevPtr recv = st.Row(s.c.buffer, s.c.row);
  if (!Contiguous(s.c)) recv = Offset(stage, RegionElems(rp, s.a), st.esize);
  BRAID_RETURN_IF_ERROR(st.api.nccl->Collective(s.collective, send, recv, size_t(CollectivePieceElems(rp, s)),
                                                st.TypeOf(s.a.buffer), st.comm, lane));
  if (!Contiguous(s.c)) return CopyFlatToRegion(st, s.c, recv, lane);
  return Status::Ok();
}

// --- flags transport ---

Status FlagsSend(RankState& st, const Step& s, GpuStream lane, uint32_t epoch) {
  const TransferLayout& peer = st.layouts[size_t(s.peer)];
  const auto it = peer.recv_of.find({st.rank, s.match});
  if (it == peer.recv_of.end()) return Status::Internal("no matching recv on rank " + std::to_string(s.peer));
  const size_t id = size_t(it->second);
  BRAID_RETURN_IF_ERROR(
      CopyRegionToFlat(st, Offset(st.peer_inbox[size_t(s.peer)], peer.inbox_off[id], st.esize), s.a, lane));
  return st.api.cuda->WriteFlag(FlagAt(st.peer_flags[size_t(s.peer)], peer.flag[id]), epoch, lane);
}

Status FlagsRecv(RankState& st, const Step& s, GpuStream lane, uint32_t epoch) {
  const TransferLayout& me = st.layout();
  BRAID_RETURN_IF_ERROR(st.api.cuda->WaitFlag(FlagAt(st.flags, me.flag[size_t(s.id)]), epoch, lane));
  return CopyFlatToRegion(st, s.c, Offset(st.inbox, me.inbox_off[size_t(s.id)], st.esize), lane);
}

// Pushes this rank's contribution into every peer's inbox slot, then
// gathers or sums what the peers pushed into its own.
Status FlagsCollective(RankState& st, const Step& s, GpuStream lane, uint32_t epoch) {
  const int ranks = st.plan->tp(), r = st.rank;
  const TransferLayout& me = st.layout();
  const int64_t slot = me.slot_elems[size_t(s.id)];
  for (int q = 0; q < ranks; ++q) {
    if (q == r) continue;
    const TransferLayout& peer = st.layouts[size_t(q)];
    const auto it = peer.collective_of.find(s.match);
    if (it == peer.collective_of.end()) return Status::Internal("collective missing on rank " + std::to_string(q));
    const size_t id = size_t(it->second);
    Region part = s.a;
    if (s.collective == CollectiveKind::kReduceScatter) {
      BRAID_ASSIGN_OR_RETURN(auto piece, PieceOf(s.a, q, ranks));
      part = piece;
    }
    DevPtr dst = Offset(st.peer_inbox[size_t(q)], peer.inbox_off[id] + r * peer.slot_elems[id], st.esize);
    BRAID_RETURN_IF_ERROR(CopyRegionToFlat(st, dst, part, lane));
    BRAID_RETURN_IF_ERROR(st.api.cuda->WriteFlag(FlagAt(st.peer_flags[size_t(q)], peer.flag[id] + r), epoch, lane));
  }
  // Own contribution first.
  if (s.collective == CollectiveKind::kAllGather) {
    BRAID_ASSIGN_OR_RETURN(auto own, PieceOf(s.c, r, ranks));
    BRAID_RETURN_IF_ERROR(CopyRegion(st, own, s.a, lane));
  } else if (s.collective == CollectiveKind::kReduceScatter) {
    BRAID_ASSIGN_OR_RETURN(auto own, PieceOf(s.a, r, ranks));
    BRAID_RETURN_IF_ERROR(CopyRegion(st, s.c, own, lane));
  } else {
    BRAID_RETURN_IF_ERROR(CopyRegion(st, s.c, s.a, lane));
  }
  for (int q = 0; q < ranks; ++q) {
    if (q == r) continue;
    BRAID_RETURN_IF_ERROR(st.api.cuda->WaitFlag(FlagAt(st.flags, me.flag[size_t(s.id)] + q), epoch, lane));
    DevPtr from = Offset(st.inbox, me.inbox_off[size_t(s.id)] + q * slot, st.esize);
    if (s.collective == CollectiveKind::kAllGather) {
      BRAID_ASSIGN_OR_RETURN(auto piece, PieceOf(s.c, q, ranks));
      BRAID_RETURN_IF_ERROR(CopyFlatToRegion(st, piece, from, lane));
    } else {
      BRAID_RETURN_IF_ERROR(AddFlatInto(st, s.c, from, lane));
    }
  }
  return Status::Ok();
}

Status IssueWork(RankState& st, const Step& s, GpuStream lane, uint32_t epoch) {
  switch (s.kind) {
    case StepKind::kGemm:
      return Gemm(st, s, lane);
    case StepKind::kReduce:
      return Reduce(st, s, lane);
    case StepKind::kCopy:
      return CopyRegion(st, s.c, s.a, lane);
    case StepKind::kCompute:
      return Compute(st, s, lane);
    case StepKind::kSend:
      return st.transport == Transport::kNccl ? NcclSend(st, s, lane) : FlagsSend(st, s, lane, epoch);
    case StepKind::kRecv:
      return st.transport == Transport::kNccl ? NcclRecv(st, s, lane) : FlagsRecv(st, s, lane, epoch);
    case StepKind::kCollective:
      return st.transport == Transport::kNccl ? NcclCollective(st, s, lane) : FlagsCollective(st, s, lane, epoch);
    case StepKind::kFused:
      return st.core.empty() ? IssueFused(st, s, lane, epoch) : IssueCore(st, s, lane, epoch);
  }
  return Status::Internal("unknown step kind");
}

}  // namespace

Status PrimeKernels(RankState& st) {
  bool adds = false;
  for (const Step& s : st.rank_plan().steps) {
    GpuStream lane = st.lanes[size_t(s.lane)];
    if (s.kind == StepKind::kGemm) BRAID_RETURN_IF_ERROR(Gemm(st, s, lane));
    if (s.kind == StepKind::kCompute) BRAID_RETURN_IF_ERROR(Compute(st, s, lane));
    // Reduce steps, and reduce-scatters or all-reduces over flags, launch the add kernel.
    adds = adds || s.kind == StepKind::kReduce ||
           (s.kind == StepKind::kCollective && st.transport == Transport::kFlags &&
            s.collective != CollectiveKind::kAllGather);
  }
  if (adds) {
    // On a scratch element of its own: the add kernel is the same for every size.
    BRAID_RETURN_IF_ERROR(
        st.api.cuda->Add(st.prime_scratch, st.prime_scratch, st.prime_scratch, 1, st.dtype, st.lanes[0]));
  }
  // A copy, and over flags a flag write and wait, on every stream that may
  // carry them, on scratch bytes of the rank's own (NCCL moves data without
  // stream memory operations: none is issued there).
  DevPtr from = Offset(st.prime_scratch, 16, 1), to = Offset(st.prime_scratch, 32, 1);
  DevPtr flag = Offset(st.prime_scratch, 48, 1);
  std::vector<GpuStream> streams = st.lanes;
  for (GpuStream q : st.send_queue) {
    if (q != nullptr) streams.push_back(q);
  }
  for (GpuStream q : streams) {
    BRAID_RETURN_IF_ERROR(st.api.cuda->Copy2D(to, 16, from, 16, 16, 1, q));
    if (st.transport != Transport::kFlags) continue;
    BRAID_RETURN_IF_ERROR(st.api.cuda->WriteFlag(flag, 1, q));
    BRAID_RETURN_IF_ERROR(st.api.cuda->WaitFlag(flag, 1, q));
  }
  return PrimeCoreSteps(st, from, to, flag);
}

Status IssueStep(RankState& st, const Step& s, uint32_t epoch) {
  GpuStream lane = st.lanes[size_t(s.lane)];
  for (int d : s.deps) {
    const Step& dep = st.rank_plan().steps[size_t(d)];
    if (dep.lane != s.lane) BRAID_RETURN_IF_ERROR(st.api.cuda->Wait(lane, st.done[size_t(d)]));
  }
  BRAID_RETURN_IF_ERROR(IssueWork(st, s, lane, epoch));
  if (s.kind == StepKind::kSend && st.transport == Transport::kNccl) return Status::Ok();  // recorded when staged
  return st.api.cuda->Record(st.done[size_t(s.id)], lane);
}

}  // namespace braid::cuda
