// The per-rank rules of CheckPlanStructure (plan_check.h): ranks and lanes,
// buffers, outputs, ops, and every step's fields, regions and shapes.
#include <cstdint>
#include <string>

#include "braid/step_access.h"
#include "plan_check_parts.h"
#include "plan_text.h"

namespace braid {

namespace {

Status CheckBuffers(const RankPlan& rp, int r) {
  for (const BufferDecl& buf : rp.buffers) {
    if (buf.rows < 1 || buf.cols < 1) {
      return Status::Invalid("rank " + std::to_string(r) + " buffer '" + buf.name + "' is empty (" +
                             std::to_string(buf.rows) + "x" + std::to_string(buf.cols) + ")");
    }
    if (buf.role == BufferRole::kInput &&
        (buf.input.rows < 0 || buf.input.dst_row < 0 || buf.input.dst_row > buf.rows ||
         buf.input.rows > buf.rows - buf.input.dst_row)) {
      return Status::Invalid("rank " + std::to_string(r) + " buffer '" + buf.name + "': input window of " +
                             std::to_string(buf.input.rows) + " rows at row " + std::to_string(buf.input.dst_row) +
                             " does not fit its " + std::to_string(buf.rows) + " rows");
    }
  }
  return Status::Ok();
}

// Every output names a buffer and a GEMM op, with a window of the buffer's
// rows; every buffer names an op.
Status CheckOutputsAndOps(const Plan& plan, const RankPlan& rp, int r, int ops) {
  for (const OpOutput& out : rp.Outputs()) {
    if (out.buffer < 0 || out.buffer >= int(rp.buffers.size())) {
      return Status::Invalid("rank " + std::to_string(r) + " has no output buffer");
    }
    if (out.op < 0 || out.op >= ops || (plan.is_layer() && !plan.ops[size_t(out.op)].gemm)) {
      return Status::Invalid("rank " + std::to_string(r) + " output '" + rp.buffers[size_t(out.buffer)].name +
                             "' names op " + std::to_string(out.op) + ", which is not a GEMM op of the plan");
    }
    if (out.window.rows != rp.buffers[size_t(out.buffer)].rows) {
      return Status::Invalid("rank " + std::to_string(r) + " output window has " + std::to_string(out.window.rows) +
                             " rows but buffer '" + rp.buffers[size_t(out.buffer)].name + "' has " +
                             std::to_string(rp.buffers[size_t(out.buffer)].rows));
    }
  }
  for (const BufferDecl& buf : rp.buffers) {
    if (buf.op < 0 || buf.op >= ops) {
      return Status::Invalid("rank " + std::to_string(r) + " buffer '" + buf.name + "' names op " +
                             std::to_string(buf.op) + " (plan has " + std::to_string(ops) + ")");
    }
  }
  return Status::Ok();
}

// Region `which` ('a', 'b' or 'c') of step `s` lies inside its buffer.
Status CheckRegion(const RankPlan& rp, int r, const Step& s, char which) {
  const Region& g = RegionOf(s, which);
  auto what = [&] { return StepRef(r, s) + ": region " + std::string(1, which); };
  if (g.buffer < 0 || g.buffer >= int(rp.buffers.size())) {
    return Status::Invalid(what() + " names buffer " + std::to_string(g.buffer) + ", which rank " + std::to_string(r) +
                           " does not declare");
  }
  const BufferDecl& buf = rp.buffers[size_t(g.buffer)];
  if (g.rows < 1 || g.pieces < 1) {
    return Status::Invalid(what() + " " + RegionText(rp, g) + " is empty");
  }
  if (g.pieces > 1 && g.stride < g.rows) {
    return Status::Invalid(what() + " " + RegionText(rp, g) + " has overlapping or descending pieces");
  }
  // Room after the first piece; later pieces need (pieces - 1) strides of it
  // (divided rather than multiplied, so that no size can overflow).
  const int64_t room = g.row < 0 || g.row > buf.rows ? -1 : buf.rows - g.row - g.rows;
  if (room < 0 || (g.pieces > 1 && int64_t(g.pieces - 1) > room / g.stride)) {
    return Status::Invalid(what() + " " + RegionText(rp, g) + " lies outside the buffer (" + std::to_string(buf.rows) +
                           " rows)");
  }
  return Status::Ok();
}

// The step's regions agree in rows and columns. @pre CheckRegion passed for
// every region the step uses.
Status CheckShapes(const Plan& plan, const RankPlan& rp, int r, const Step& s) {
  auto who = [&] { return StepRef(r, s); };
  auto same = [&](const Region& x, const Region& y, const char* xn, const char* yn) -> Status {
    if (x.total_rows() != y.total_rows() || Cols(rp, x) != Cols(rp, y)) {
      return Status::Invalid(who() + ": " + xn + " is " + std::to_string(x.total_rows()) + "x" +
                             std::to_string(Cols(rp, x)) + " but " + yn + " is " + std::to_string(y.total_rows()) +
                             "x" + std::to_string(Cols(rp, y)));
    }
    return Status::Ok();
  };
  if (s.accumulate && s.kind != StepKind::kGemm) {
    return Status::Invalid(who() + ": only a GEMM accumulates into c");
  }
  switch (s.kind) {
    case StepKind::kGemm: {
      const BufferDecl& b = rp.buffers[size_t(s.b.buffer)];
      if (s.b.row != 0 || s.b.pieces != 1 || s.b.rows != b.rows) {
        return Status::Invalid(who() + ": b must be the whole B buffer '" + b.name + "'");
      }
      if (s.a.total_rows() != s.c.total_rows()) {
        return Status::Invalid(who() + ": a has " + std::to_string(s.a.total_rows()) + " rows but c has " +
                               std::to_string(s.c.total_rows()));
      }
      if (Cols(rp, s.a) != b.rows) {
        return Status::Invalid(who() + ": a has " + std::to_string(Cols(rp, s.a)) + " columns but B has " +
                               std::to_string(b.rows) + " rows");
      }
      if (Cols(rp, s.c) != b.cols) {
        return Status::Invalid(who() + ": c has " + std::to_string(Cols(rp, s.c)) + " columns but B has " +
                               std::to_string(b.cols));
      }
      return Status::Ok();
    }
    case StepKind::kReduce:
      BRAID_RETURN_IF_ERROR(same(s.a, s.c, "a", "c"));
      return same(s.b, s.c, "b", "c");
    case StepKind::kCopy:
      return same(s.a, s.c, "a", "c");
    case StepKind::kCollective: {
      const int p = plan.tp();
      if (Cols(rp, s.a) != Cols(rp, s.c)) {
        return Status::Invalid(who() + ": a has " + std::to_string(Cols(rp, s.a)) + " columns but c has " +
                               std::to_string(Cols(rp, s.c)));
      }
      switch (s.collective) {
        case CollectiveKind::kAllGather:
          if (s.c.pieces != p || s.c.rows != s.a.total_rows()) {
            return Status::Invalid(who() + ": all_gather needs c = " + std::to_string(p) + " pieces of a's " +
                                   std::to_string(s.a.total_rows()) + " rows, got " + RegionText(rp, s.c));
          }
          break;
        case CollectiveKind::kReduceScatter:
          if (s.a.pieces != p || s.a.rows != s.c.total_rows()) {
            return Status::Invalid(who() + ": reduce_scatter needs a = " + std::to_string(p) + " pieces of c's " +
                                   std::to_string(s.c.total_rows()) + " rows, got " + RegionText(rp, s.a));
          }
          break;
        case CollectiveKind::kAllReduce:
          return same(s.a, s.c, "a", "c");
      }
      return Status::Ok();
    }
    case StepKind::kFused: {
      const int p = plan.tp();
      const BufferDecl& b = rp.buffers[size_t(s.b.buffer)];
      if (s.b.row != 0 || s.b.pieces != 1 || s.b.rows != b.rows) {
        return Status::Invalid(who() + ": b must be the whole B buffer '" + b.name + "'");
      }
      if (Cols(rp, s.a) != b.rows || Cols(rp, s.c) != b.cols) {
        return Status::Invalid(who() + ": a has " + std::to_string(Cols(rp, s.a)) + " columns and c " +
                               std::to_string(Cols(rp, s.c)) + " but B is " + std::to_string(b.rows) + "x" +
                               std::to_string(b.cols));
      }
      if (s.collective == CollectiveKind::kAllGather) {
        if (s.c.total_rows() != int64_t(p) * s.a.total_rows()) {
          return Status::Invalid(who() + ": a fused all_gather GEMM needs c = " + std::to_string(p) + " x a's " +
                                 std::to_string(s.a.total_rows()) + " rows, got " + RegionText(rp, s.c));
        }
      } else if (s.collective == CollectiveKind::kReduceScatter) {
        if (s.a.total_rows() != int64_t(p) * s.c.total_rows()) {
          return Status::Invalid(who() + ": a fused reduce_scatter GEMM needs a = " + std::to_string(p) + " x c's " +
                                 std::to_string(s.c.total_rows()) + " rows, got " + RegionText(rp, s.a));
        }
      } else {
        return Status::Invalid(who() + ": a fused step is all_gather or reduce_scatter, not " +
                               std::string(CollectiveName(s.collective)));
      }
      return Status::Ok();
    }
    case StepKind::kSend:
    case StepKind::kRecv:
    case StepKind::kCompute:
      return Status::Ok();
  }
  return Status::Ok();
}

Status CheckStep(const Plan& plan, const RankPlan& rp, int r, size_t index, int ops) {
  const Step& s = rp.steps[index];
  if (!StepIdValid(index, s)) return StepIdError(r, index, s);
  if (!StepDepsValid(s)) return StepDepsError(r, s);
  if (s.op < 0 || s.op >= ops) {
    return Status::Invalid(StepRef(r, s) + ": op " + std::to_string(s.op) + " does not exist (" + std::to_string(ops) +
                           " ops)");
  }
  if (!StepLaneValid(plan, s)) return StepLaneError(plan, r, s);
  for (char which : {'a', 'b', 'c'}) {
    if (Uses(s.kind, which)) BRAID_RETURN_IF_ERROR(CheckRegion(rp, r, s, which));
  }
  BRAID_RETURN_IF_ERROR(CheckShapes(plan, rp, r, s));
  if (!StepPeerValid(plan, s)) return StepPeerError(plan, r, s);
  return Status::Ok();
}

}  // namespace

Status CheckRanksStructure(const Plan& plan) {
  const int p = plan.tp();
  if (p < 1) return Status::Invalid("plan has no ranks");
  if (p != plan.workload.tp) {
    return Status::Invalid("plan has " + std::to_string(p) +
                           " ranks but its workload has P=" + std::to_string(plan.workload.tp));
  }
  if (plan.lanes.empty()) return Status::Invalid("plan has no lanes");
  const int ops = plan.op_count();
  for (int r = 0; r < p; ++r) {
    const RankPlan& rp = plan.ranks[size_t(r)];
    BRAID_RETURN_IF_ERROR(CheckBuffers(rp, r));
    BRAID_RETURN_IF_ERROR(CheckOutputsAndOps(plan, rp, r, ops));
    for (size_t i = 0; i < rp.steps.size(); ++i) BRAID_RETURN_IF_ERROR(CheckStep(plan, rp, r, i, ops));
  }
  return Status::Ok();
}

}  // namespace braid
