#include "buffer_dtypes.h"

#include <string>

#include "braid/blaslt_api.h"

namespace braid::cuda {

namespace {

// What a buffer is for, as far as FP8 is concerned.
enum class Use { kNone, kA, kB, kOut };

const char* UseName(Use u) {
  switch (u) {
    case Use::kA:
      return "an FP8 GEMM A";
    case Use::kB:
      return "an FP8 GEMM B";
    case Use::kOut:
      return "a bf16 GEMM result";
    case Use::kNone:
      break;
  }
  return "nothing";
}

struct Class {
  Use use = Use::kNone;
  int op = -1;
};

class Typer {
 public:
  Typer(const Plan& plan, int rank) : plan_(plan), rank_(rank), rp_(plan.ranks[size_t(rank)]) {
    for (size_t b = 0; b < rp_.buffers.size(); ++b) parent_.push_back(BufferId(b));
  }

  Result<std::vector<BufferType>> Run() {
    // Copies and collectives keep the type: one class per joined set.
    for (const Step& s : rp_.steps) {
      if (s.kind == StepKind::kCopy || s.kind == StepKind::kCollective) Join(s.a.buffer, s.c.buffer);
    }
    std::vector<Class> cls(rp_.buffers.size());
    for (size_t b = 0; b < rp_.buffers.size(); ++b) {
      const BufferDecl& d = rp_.buffers[b];
      if (d.role == BufferRole::kInput) {
        BRAID_RETURN_IF_ERROR(Mark(cls, BufferId(b), d.input.matrix == Matrix::kA ? Use::kA : Use::kB, d.op, ""));
      } else if (d.role == BufferRole::kOutput) {
        BRAID_RETURN_IF_ERROR(Mark(cls, BufferId(b), Use::kOut, -1, ""));
      }
    }
    // A fused step's GEMM (the GEMM core's, fused_core_step.h) takes its operands as a GEMM step's.
    for (const Step& s : rp_.steps) {
      if (s.kind != StepKind::kGemm && s.kind != StepKind::kFused) continue;
      BRAID_RETURN_IF_ERROR(Mark(cls, s.a.buffer, Use::kA, s.op, s.name));
      BRAID_RETURN_IF_ERROR(Mark(cls, s.b.buffer, Use::kB, s.op, s.name));
      BRAID_RETURN_IF_ERROR(Mark(cls, s.c.buffer, Use::kOut, -1, s.name));
    }
    std::vector<BufferType> out(rp_.buffers.size());
    for (size_t b = 0; b < out.size(); ++b) {
      const Class& c = cls[size_t(Find(BufferId(b)))];
      BufferType& t = out[b];
      switch (c.use) {
        case Use::kA:
          t.dtype = plan_.op_workload(c.op).dtype;
          t.scale = 2 * c.op;
          break;
        case Use::kB:
          t.dtype = Fp8WeightDType(plan_.op_workload(c.op).dtype);
          t.transposed = true;
          t.scale = 2 * c.op + 1;
          break;
        case Use::kOut:
        case Use::kNone:
          t.dtype = plan_.workload.OutDType();
          break;
      }
    }
    // A buffer only transfers touch (a relay): the op's comm dtype (Plan::op_comm_dtype).
    for (const Step& s : rp_.steps) {
      if (s.kind != StepKind::kSend && s.kind != StepKind::kRecv) continue;
      const BufferId b = s.kind == StepKind::kSend ? s.a.buffer : s.c.buffer;
      if (cls[size_t(Find(b))].use == Use::kNone) out[size_t(b)].dtype = plan_.op_comm_dtype(s.op);
    }
    BRAID_RETURN_IF_ERROR(CheckSteps(out));
    return out;
  }

 private:
  BufferId Find(BufferId b) {
    while (parent_[size_t(b)] != b) b = parent_[size_t(b)] = parent_[size_t(parent_[size_t(b)])];
    return b;
  }
  void Join(BufferId a, BufferId b) {
    if (a < 0 || b < 0) return;
    parent_[size_t(Find(a))] = Find(b);
  }

  std::string Where(const std::string& step) const {
    return "rank " + std::to_string(rank_) + (step.empty() ? "" : " step '" + step + "'");
  }

  Status Mark(std::vector<Class>& cls, BufferId b, Use use, int op, const std::string& step) {
    Class& c = cls[size_t(Find(b))];
    if (c.use == Use::kNone) {
      c = {use, op};
      return Status::Ok();
    }
    if (c.use == use && (use == Use::kOut || c.op == op)) return Status::Ok();
    return Status::Invalid(Where(step) + ": buffer '" + rp_.buffers[size_t(b)].name + "' would hold both " +
                           UseName(c.use) + " and " + UseName(use) + (c.use == use ? " of another op" : "") +
                           "; the cuda backend cannot run this plan in FP8");
  }

  Status CheckSteps(const std::vector<BufferType>& t) {
    for (const Step& s : rp_.steps) {
      const bool moves = s.kind == StepKind::kSend || s.kind == StepKind::kRecv || s.kind == StepKind::kCollective ||
                         s.kind == StepKind::kCopy;
      if (moves) {
        for (BufferId b : {s.a.buffer, s.c.buffer}) {
          if (b >= 0 && t[size_t(b)].transposed) {
            return Status::Invalid(Where(s.name) + ": moves FP8 B buffer '" + rp_.buffers[size_t(b)].name +
                                   "', which the cuda backend stores transposed for cuBLASLt; FP8 B must stay local");
          }
        }
      }
      if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv || s.kind == StepKind::kCollective) {
        const BufferId b = s.kind == StepKind::kSend ? s.a.buffer : s.c.buffer;
        const DType comm = plan_.op_comm_dtype(s.op);
        if (t[size_t(b)].dtype != comm) {
          return Status::Invalid(Where(s.name) + ": the plan moves " + std::string(DTypeName(comm)) + " but buffer '" +
                                 rp_.buffers[size_t(b)].name + "' holds " + std::string(DTypeName(t[size_t(b)].dtype)) +
                                 "; the cuda backend sums and moves GEMM partials in bf16 only (FP8 partials need a "
                                 "dequantize-and-add kernel it lacks)");
        }
      }
      const bool sums = s.kind == StepKind::kReduce ||
                        (s.kind == StepKind::kCollective && s.collective != CollectiveKind::kAllGather);
      if (sums && IsFp8(t[size_t(s.c.buffer)].dtype)) {
        return Status::Invalid(Where(s.name) + ": sums FP8 buffer '" + rp_.buffers[size_t(s.c.buffer)].name +
                               "'; the cuda backend adds in bf16 only");
      }
      if (s.kind == StepKind::kGemm) BRAID_RETURN_IF_ERROR(CheckGemm(s));
    }
    return Status::Ok();
  }

  // cuBLASLt's rules on every matmul the step issues, at cudaMalloc's
  // 256-byte alignment plus the rows' offsets.
  Status CheckGemm(const Step& s) {
    const BufferDecl& a = rp_.buffers[size_t(s.a.buffer)];
    const BufferDecl& b = rp_.buffers[size_t(s.b.buffer)];
    const BufferDecl& c = rp_.buffers[size_t(s.c.buffer)];
    const auto at = [](int64_t bytes) { return reinterpret_cast<DevPtr>(uintptr_t(256 + bytes)); };  // NOLINT
    for (int p = 0; p < s.a.pieces; ++p) {
      MatmulArgs m;
      m.m = s.a.rows;
      m.n = b.cols;
      m.k = b.rows;
      m.lda = a.cols;
      m.ldb = b.rows;
      m.ldc = c.cols;
      m.a = at(s.a.piece_row(p) * a.cols);
      m.b = at(0);
      m.c = at(s.c.piece_row(p < s.c.pieces ? p : 0) * c.cols * 2);
      m.dtype = plan_.op_workload(s.op).dtype;
      m.fp8.b = Fp8WeightDType(m.dtype);
      m.fp8.a_scale = m.fp8.b_scale = at(0);
      if (m.m == 0) continue;
      const Status st = CheckFp8Matmul(m);
      if (!st.ok()) return Status::Invalid(Where(s.name) + ": " + st.message());
    }
    return Status::Ok();
  }

  const Plan& plan_;
  int rank_;
  const RankPlan& rp_;
  std::vector<BufferId> parent_;
};

}  // namespace

Result<std::vector<BufferType>> TypeBuffers(const Plan& plan, int rank) {
  const RankPlan& rp = plan.ranks[size_t(rank)];
  if (!IsFp8(plan.workload.dtype)) {
    BufferType t;
    t.dtype = plan.workload.dtype;
    return std::vector<BufferType>(rp.buffers.size(), t);
  }
  return Typer(plan, rank).Run();
}

Status CheckFp8Plan(const Plan& plan) {
  if (!IsFp8(plan.workload.dtype)) return Status::Ok();
  for (int r = 0; r < plan.tp(); ++r) {
    auto t = TypeBuffers(plan, r);
    if (!t.ok()) {
      return Status::Invalid(std::string(DTypeName(plan.workload.dtype)) +
                             " on the cuda backend: " + t.status().message());
    }
  }
  return Status::Ok();
}

}  // namespace braid::cuda
