// The abstract execution of CheckPlanSemantics (plan_check.h): every buffer
// row holds a symbolic content, steps run in the plan graph's order, and the
// outputs must end up holding the op's products or full sums.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "braid/step_access.h"
#include "plan_check_parts.h"
#include "plan_text.h"
#include "symbolic_content.h"

namespace braid {

namespace {

using symbolic::AddContent;
using symbolic::ColumnsText;
using symbolic::Content;
using symbolic::ContentText;
using symbolic::MaskText;
using symbolic::Tag;

class Executor {
 public:
  Executor(const Plan& plan, const PlanGraph& g) : plan_(plan), g_(g) {
    const int p = plan.tp();
    state_.resize(size_t(p));
    for (int r = 0; r < p; ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      auto& bufs = state_[size_t(r)];
      bufs.resize(rp.buffers.size());
      for (size_t b = 0; b < rp.buffers.size(); ++b) {
        const BufferDecl& d = rp.buffers[b];
        bufs[b].assign(size_t(d.rows), Content{});
        if (d.role == BufferRole::kInput && d.input.matrix == Matrix::kA) {
          for (int64_t i = 0; i < d.input.rows; ++i) {
            bufs[b][size_t(d.input.dst_row + i)] = {Tag::kARow, d.input.row0 + i, 0, d.op, d.input.col0, d.input.cols};
          }
        }
      }
    }
  }

  Status Run() {
    in_flight_.resize(size_t(g_.steps()));
    for (int g : g_.order()) {
      const int coll = g_.group_of(g);
      if (coll < 0) {
        BRAID_RETURN_IF_ERROR(RunStep(g_.rank_of(g), plan_.ranks[size_t(g_.rank_of(g))].steps[size_t(g_.id_of(g))]));
      } else if (g == g_.group_members(coll)[0]) {  // a group's members are adjacent: run it once
        BRAID_RETURN_IF_ERROR(RunCollective(g_.group_members(coll)));
      }
    }
    return CheckOutputs();
  }

 private:
  // The contents of a region, in row order; reading an empty row is an error.
  Status Read(int r, const Step& s, const Region& g, std::vector<Content>* out) {
    const auto& buf = state_[size_t(r)][size_t(g.buffer)];
    out->resize(size_t(g.total_rows()));
    int64_t empty_row = -1;
    ForRows(g, [&](int64_t i, int64_t row) {
      const Content& c = buf[size_t(row)];
      if (c.tag == Tag::kEmpty && empty_row < 0) empty_row = row;
      (*out)[size_t(i)] = c;
    });
    if (empty_row >= 0) {
      return Status::Invalid(StepRef(r, s) + ": reads empty row " + std::to_string(empty_row) + " of buffer '" +
                             plan_.ranks[size_t(r)].buffers[size_t(g.buffer)].name + "' (nothing has written it yet)");
    }
    return Status::Ok();
  }

  void Write(int r, const Region& g, const std::vector<Content>& v) {
    auto& buf = state_[size_t(r)][size_t(g.buffer)];
    ForRows(g, [&](int64_t i, int64_t row) { buf[size_t(row)] = v[size_t(i)]; });
  }

  Status RowError(int r, const Step& s, const Region& g, int64_t i, const std::string& why) {
    int64_t row = -1;
    ForRows(g, [&](int64_t k, int64_t rr) {
      if (k == i) row = rr;
    });
    return Status::Invalid(StepRef(r, s) + ": " + why + " (row " + std::to_string(row) + " of buffer '" +
                           plan_.ranks[size_t(r)].buffers[size_t(g.buffer)].name + "')");
  }

  // Row `a` of A times step s's B (the whole buffer s.b on rank r), in place:
  // the product, which spans B's columns of C and needs all of K, or the
  // partial over the K shards of a's columns. B must be an input whose rows
  // are exactly a's K range: a Ulysses rank holds a B block per peer and
  // must pick the one that matches what it multiplies. Returns why not, or
  // an empty text.
  std::string Multiply(int r, const Step& s, Content& a) const {
    const BufferDecl& bd = plan_.ranks[size_t(r)].buffers[size_t(s.b.buffer)];
    if (bd.role != BufferRole::kInput || bd.input.matrix != Matrix::kB) {
      return "multiplies by buffer '" + bd.name + "', which is not an input of B";
    }
    const InputWindow& bw = bd.input;
    auto what = [&] { return "multiplies row " + std::to_string(a.row) + " of A in " + ColumnsText(a.col0, a.cols); };
    if (bw.row0 != a.col0 || bw.rows != a.cols) {
      return what() + " by B's rows [" + std::to_string(bw.row0) + ", " + std::to_string(bw.row0 + bw.rows) +
             ") (buffer '" + bd.name + "')";
    }
    const Workload& w = plan_.op_workload(s.op);
    if (plan_.op_products(s.op)) {
      if (a.col0 != 0 || a.cols != w.k) {
        return what() + " into a product, which needs all K=" + std::to_string(w.k) + " columns";
      }
      a = {Tag::kProduct, a.row, 0, s.op, bw.col0, bw.cols};
      return {};
    }
    const int64_t kb = w.k / plan_.tp();
    if (kb <= 0 || a.cols <= 0 || a.col0 % kb != 0 || a.cols % kb != 0 || (a.col0 + a.cols) / kb > 64) {
      return what() + ", which are not whole K shards of " + std::to_string(kb) + " columns";
    }
    uint64_t mask = 0;
    for (int64_t q = a.col0 / kb; q < (a.col0 + a.cols) / kb; ++q) mask |= uint64_t{1} << q;
    a = {Tag::kPartial, a.row, mask, s.op, bw.col0, bw.cols};
    return {};
  }

  Status RunStep(int r, const Step& s) {
    std::vector<Content>& a = a_;
    std::vector<Content>& b = b_;
    switch (s.kind) {
      case StepKind::kGemm: {
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        for (size_t i = 0; i < a.size(); ++i) {
          if (a[i].tag != Tag::kARow) {
            return RowError(r, s, s.a, int64_t(i), "multiplies " + ContentText(a[i]) + ", expected a row of A");
          }
          if (a[i].op != s.op) {
            return RowError(r, s, s.a, int64_t(i),
                            "multiplies a row of op " + std::to_string(a[i].op) + "'s A in op " + std::to_string(s.op));
          }
          if (std::string why = Multiply(r, s, a[i]); !why.empty()) return RowError(r, s, s.a, int64_t(i), why);
        }
        if (s.accumulate) {
          // c += a·b: the product joins the partial sum c already holds.
          BRAID_RETURN_IF_ERROR(Read(r, s, s.c, &b));
          std::string why;
          for (size_t i = 0; i < a.size(); ++i) {
            if (!AddContent(b[i], a[i], &a[i], &why)) return RowError(r, s, s.c, int64_t(i), "accumulates: " + why);
          }
        }
        Write(r, s.c, a);
        return Status::Ok();
      }
      case StepKind::kSend:
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        in_flight_[size_t(g_.global(r, s.id))] = a;
        return Status::Ok();
      case StepKind::kRecv: {
        // The graph orders the send first; its contents wait here.
        std::vector<Content>& sent = in_flight_[size_t(g_.partner(g_.global(r, s.id)))];
        if (sent.empty()) return Status::Internal(StepRef(r, s) + ": ran before its send");
        Write(r, s.c, sent);
        sent = {};
        return Status::Ok();
      }
      case StepKind::kReduce: {
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        BRAID_RETURN_IF_ERROR(Read(r, s, s.b, &b));
        std::string why;
        for (size_t i = 0; i < a.size(); ++i) {
          if (!AddContent(a[i], b[i], &a[i], &why)) return RowError(r, s, s.c, int64_t(i), why);
        }
        Write(r, s.c, a);
        return Status::Ok();
      }
      case StepKind::kCopy:
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        Write(r, s.c, a);
        return Status::Ok();
      case StepKind::kCompute:
        return Status::Ok();  // no buffers
      case StepKind::kCollective:
      case StepKind::kFused:
        break;
    }
    return Status::Internal(StepRef(r, s) + ": unexpected step kind");
  }

  // `members`: the group's steps (global indices), one per rank.
  Status RunCollective(std::span<const int> members) {
    const int p = plan_.tp();
    std::vector<const Step*> steps(static_cast<size_t>(p), nullptr);
    for (int r = 0; r < p; ++r) steps[size_t(r)] = &plan_.ranks[size_t(r)].steps[size_t(g_.id_of(members[size_t(r)]))];
    // Everyone's contribution first, then everyone's result.
    std::vector<std::vector<Content>> in(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) BRAID_RETURN_IF_ERROR(Read(r, *steps[size_t(r)], steps[size_t(r)]->a, &in[size_t(r)]));
    const Step& s0 = plan_.ranks[0].steps[size_t(g_.id_of(members[0]))];
    const CollectiveKind kind = s0.collective;
    const bool fused = s0.kind == StepKind::kFused;
    if (fused) {
      // The fused kernel multiplies rows of its op's A. A reduce-scatter's
      // sender multiplies its shard into its partials, which then move as the
      // collective moves them; an all-gather's receiver multiplies the
      // gathered rows by its own B (below).
      for (int r = 0; r < p; ++r) {
        const Step& s = *steps[size_t(r)];
        auto& v = in[size_t(r)];
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i].tag != Tag::kARow || v[i].op != s.op) {
            return RowError(r, s, s.a, int64_t(i),
                            "the fused kernel multiplies " + ContentText(v[i]) +
                                (v[i].tag == Tag::kARow ? " of op " + std::to_string(v[i].op) : "") +
                                ", expected a row of op " + std::to_string(s.op) + "'s A");
          }
          if (kind == CollectiveKind::kAllGather) continue;
          if (std::string why = Multiply(r, s, v[i]); !why.empty()) return RowError(r, s, s.a, int64_t(i), why);
        }
      }
    }
    std::vector<std::vector<Content>> out(static_cast<size_t>(p));
    std::string why;
    for (int r = 0; r < p; ++r) {
      const Step& s = *steps[size_t(r)];
      auto& o = out[size_t(r)];
      switch (kind) {
        case CollectiveKind::kAllGather:
          for (int q = 0; q < p; ++q) o.insert(o.end(), in[size_t(q)].begin(), in[size_t(q)].end());
          for (size_t i = 0; fused && i < o.size(); ++i) {
            if (std::string m = Multiply(r, s, o[i]); !m.empty()) return RowError(r, s, s.c, int64_t(i), m);
          }
          break;
        case CollectiveKind::kReduceScatter: {
          const size_t n = size_t(s.c.total_rows());
          o.assign(in[0].begin() + std::ptrdiff_t(size_t(r) * n), in[0].begin() + std::ptrdiff_t(size_t(r + 1) * n));
          for (int q = 1; q < p; ++q) {
            for (size_t i = 0; i < n; ++i) {
              if (!AddContent(o[i], in[size_t(q)][size_t(r) * n + i], &o[i], &why)) {
                return RowError(r, s, s.c, int64_t(i), why + " summing rank " + std::to_string(q) + "'s piece");
              }
            }
          }
          break;
        }
        case CollectiveKind::kAllReduce:
          o = in[0];
          for (int q = 1; q < p; ++q) {
            for (size_t i = 0; i < o.size(); ++i) {
              if (!AddContent(o[i], in[size_t(q)][i], &o[i], &why)) {
                return RowError(r, s, s.c, int64_t(i), why + " summing rank " + std::to_string(q) + "'s part");
              }
            }
          }
          break;
      }
    }
    for (int r = 0; r < p; ++r) Write(r, steps[size_t(r)]->c, out[size_t(r)]);
    return Status::Ok();
  }

  // Every GEMM op's output (RankPlan::Outputs): layer plans are checked op by
  // op, each output against its own op's products or full sums.
  Status CheckOutputs() const {
    const int p = plan_.tp();
    const uint64_t all = p == 64 ? ~uint64_t{0} : (uint64_t{1} << p) - 1;
    for (int r = 0; r < p; ++r) {
      const RankPlan& rp = plan_.ranks[size_t(r)];
      for (const OpOutput& out : rp.Outputs()) {
        const bool product = plan_.op_products(out.op);
        const auto& buf = state_[size_t(r)][size_t(out.buffer)];
        for (size_t i = 0; i < buf.size(); ++i) {
          const int64_t want_row = out.window.row0 + int64_t(i);
          const OutputWindow& ow = out.window;
          const Content want = product ? Content{Tag::kProduct, want_row, 0, out.op, ow.col0, ow.cols}
                                       : Content{Tag::kPartial, want_row, all, out.op, ow.col0, ow.cols};
          const Content& got = buf[i];
          const bool same = got.tag == want.tag && got.row == want.row && got.mask == want.mask && got.op == want.op;
          const bool same_cols = got.col0 == want.col0 && got.cols == want.cols;
          if (same && same_cols) continue;
          std::string text = "rank " + std::to_string(r) + " output '" + rp.buffers[size_t(out.buffer)].name +
                             "' row " + std::to_string(i) + ": expected " + ContentText(want) + ", found " +
                             ContentText(got);
          if (got.op != want.op) text += " of op " + std::to_string(got.op);
          if (same) {
            text += " in " + ColumnsText(got.col0, got.cols) + " of C, not its " + ColumnsText(want.col0, want.cols);
          }
          if (got.tag == Tag::kPartial && got.row == want.row) {
            text += " (missing a partial: ranks " + MaskText(all & ~got.mask) + ")";
          }
          return Status::Invalid(text);
        }
      }
    }
    return Status::Ok();
  }

  const Plan& plan_;
  const PlanGraph& g_;
  std::vector<std::vector<std::vector<Content>>> state_;  // rank -> buffer -> row
  std::vector<std::vector<Content>> in_flight_;           // global index of a send -> what it sent
  std::vector<Content> a_, b_;                            // scratch
};

}  // namespace

Status ExecutePlanAbstractly(const Plan& plan, const PlanGraph& graph) {
  Executor ex(plan, graph);
  return ex.Run();
}

}  // namespace braid
