#include "braid/fused_schedule_check.h"

#include <cstdint>
#include <deque>
#include <map>

namespace braid::cuda::fused {

namespace {

// Every task of every rank, numbered globally.
struct TaskRef {
  int rank = 0, cta = 0, index = 0;  // index into the rank's tasks
};

class Proof {
 public:
  Proof(const FusedShape& s, const std::vector<RankTables>& t) : s_(s), t_(t) {}

  Status Run() {
    if (int(t_.size()) != s_.ranks) return Status::Invalid("fused schedule: tables for " + Count(t_.size()) + " ranks");
    BRAID_RETURN_IF_ERROR(Structure());
    BRAID_RETURN_IF_ERROR(Flags());
    BRAID_RETURN_IF_ERROR(Order());
    HappensBefore();
    return s_.op == FusedOp::kAgGemm ? AgData() : RsData();
  }

 private:
  static std::string Count(size_t n) { return std::to_string(n); }
  std::string Name(int g) const {
    const TaskRef& t = refs_[size_t(g)];
    const FusedTask& k = Task(g);
    return "rank " + std::to_string(t.rank) + " CTA " + std::to_string(t.cta) + " task " + std::to_string(t.index) +
           " (rows " + std::to_string(k.row0) + "+" + std::to_string(k.rows) + ", cols " + std::to_string(k.col0) +
           "+" + std::to_string(k.cols) + ")";
  }
  const FusedTask& Task(int g) const {
    const TaskRef& t = refs_[size_t(g)];
    return t_[size_t(t.rank)].tasks[size_t(t.index)];
  }
  int Global(int rank, int index) const { return first_[size_t(rank)] + index; }

  Status Structure() {
    for (int r = 0; r < s_.ranks; ++r) {
      const RankTables& rt = t_[size_t(r)];
      first_.push_back(int(refs_.size()));
      if (rt.cta_begin.empty() || rt.cta_begin.front() != 0 || rt.cta_begin.back() != int32_t(rt.tasks.size()) ||
          rt.comm_ctas != s_.comm_ctas || rt.ctas() != s_.comm_ctas + s_.compute_ctas) {
        return Status::Invalid("fused schedule: rank " + std::to_string(r) + "'s CTA ranges do not cover its tasks");
      }
      for (int c = 0; c < rt.ctas(); ++c) {
        if (rt.cta_begin[size_t(c)] > rt.cta_begin[size_t(c) + 1]) {
          return Status::Invalid("fused schedule: rank " + std::to_string(r) + " CTA " + std::to_string(c) +
                                 " has a negative range");
        }
        for (int i = rt.cta_begin[size_t(c)]; i < rt.cta_begin[size_t(c) + 1]; ++i) refs_.push_back({r, c, i});
      }
    }
    for (int g = 0; g < int(refs_.size()); ++g) {
      const TaskRef& ref = refs_[size_t(g)];
      const RankTables& rt = t_[size_t(ref.rank)];
      const FusedTask& k = Task(g);
      const bool comm = ref.cta < rt.comm_ctas;
      const int32_t mover = s_.op == FusedOp::kAgGemm ? kPullRows : kReduceTile;
      if ((comm && k.kind != mover) || (!comm && k.kind != kGemmTile)) {
        return Status::Invalid("fused schedule: " + Name(g) + " is a task of the wrong kind for a " +
                               (comm ? "comm" : "compute") + " CTA");
      }
      if (k.rows <= 0 || k.cols <= 0 || k.row0 < 0 || k.col0 < 0 || k.row0 + k.rows > s_.m ||
          k.col0 + k.cols > (k.kind == kPullRows ? s_.k : s_.n)) {
        return Status::Invalid("fused schedule: " + Name(g) + " lies outside the GEMM");
      }
      if (k.wait_begin < 0 || k.wait_count < 0 || size_t(k.wait_begin) + size_t(k.wait_count) > rt.waits.size()) {
        return Status::Invalid("fused schedule: " + Name(g) + " has waits outside the wait table");
      }
      for (int w = 0; w < k.wait_count; ++w) {
        const FlagRef f = rt.waits[size_t(k.wait_begin + w)];
        if (f.rank < 0 || f.rank >= s_.ranks || f.index < 0 || f.index >= t_[size_t(f.rank)].flags) {
          return Status::Invalid("fused schedule: " + Name(g) + " waits on flag " + std::to_string(f.index) +
                                 " of rank " + std::to_string(f.rank) + ", which does not exist");
        }
      }
      if (k.sets >= rt.flags) return Status::Invalid("fused schedule: " + Name(g) + " sets a flag that does not exist");
    }
    return Status::Ok();
  }

  // Every flag set by exactly one task.
  Status Flags() {
    for (int g = 0; g < int(refs_.size()); ++g) {
      const FusedTask& k = Task(g);
      if (k.sets < 0) continue;
      const auto key = std::make_pair(refs_[size_t(g)].rank, int(k.sets));
      if (!setter_.emplace(key, g).second) {
        return Status::Invalid("fused schedule: flag " + std::to_string(k.sets) + " of rank " +
                               std::to_string(key.first) + " is set twice, by " + Name(setter_[key]) + " and " +
                               Name(g));
      }
    }
    for (int r = 0; r < s_.ranks; ++r) {
      for (int f = 0; f < t_[size_t(r)].flags; ++f) {
        if (setter_.count({r, f}) == 0) {
          return Status::Invalid("fused schedule: flag " + std::to_string(f) + " of rank " + std::to_string(r) +
                                 " is never set" + WaiterOf(r, f));
        }
      }
    }
    return Status::Ok();
  }

  std::string WaiterOf(int r, int f) const {
    for (int g = 0; g < int(refs_.size()); ++g) {
      const RankTables& rt = t_[size_t(refs_[size_t(g)].rank)];
      const FusedTask& k = Task(g);
      for (int w = 0; w < k.wait_count; ++w) {
        const FlagRef x = rt.waits[size_t(k.wait_begin + w)];
        if (x.rank == r && x.index == f) return "; " + Name(g) + " waits on it forever";
      }
    }
    return "";
  }

  // Kahn over program order + setter→waiter edges: a complete order, or a cycle.
  Status Order() {
    const int n = int(refs_.size());
    preds_.assign(size_t(n), {});
    std::vector<std::vector<int>> succ(static_cast<size_t>(n));
    for (int g = 0; g < n; ++g) {
      const TaskRef& ref = refs_[size_t(g)];
      const RankTables& rt = t_[size_t(ref.rank)];
      if (ref.index > rt.cta_begin[size_t(ref.cta)]) preds_[size_t(g)].push_back(g - 1);
      const FusedTask& k = Task(g);
      for (int w = 0; w < k.wait_count; ++w) {
        const FlagRef f = rt.waits[size_t(k.wait_begin + w)];
        preds_[size_t(g)].push_back(setter_.at({f.rank, f.index}));
      }
      for (int p : preds_[size_t(g)]) succ[size_t(p)].push_back(g);
    }
    std::vector<int> missing(static_cast<size_t>(n));
    std::deque<int> ready;
    for (int g = 0; g < n; ++g) {
      missing[size_t(g)] = int(preds_[size_t(g)].size());
      if (missing[size_t(g)] == 0) ready.push_back(g);
    }
    while (!ready.empty()) {
      const int g = ready.front();
      ready.pop_front();
      order_.push_back(g);
      for (int x : succ[size_t(g)]) {
        if (--missing[size_t(x)] == 0) ready.push_back(x);
      }
    }
    if (int(order_.size()) == n) return Status::Ok();
    for (int g = 0; g < n; ++g) {
      if (missing[size_t(g)] > 0) {
        return Status::Invalid("fused schedule: deadlock, " + Name(g) + " waits on a flag whose setter waits on it (" +
                               std::to_string(n - int(order_.size())) + " tasks can never run)");
      }
    }
    return Status::Internal("fused schedule: order incomplete");
  }

  void HappensBefore() {
    const size_t n = refs_.size(), words = (n + 63) / 64;
    hb_.assign(n, std::vector<uint64_t>(words, 0));
    for (int g : order_) {
      std::vector<uint64_t>& mine = hb_[size_t(g)];
      for (int p : preds_[size_t(g)]) {
        const std::vector<uint64_t>& theirs = hb_[size_t(p)];
        for (size_t w = 0; w < words; ++w) mine[w] |= theirs[w];
        mine[size_t(p) / 64] |= uint64_t(1) << (size_t(p) % 64);
      }
    }
  }
  bool Before(int a, int b) const { return (hb_[size_t(b)][size_t(a) / 64] >> (size_t(a) % 64)) & 1; }

  Status AgData() {
    const int64_t mb = s_.block_rows();
    for (int r = 0; r < s_.ranks; ++r) {
      std::vector<int> pulled(size_t(s_.m), -1);
      std::vector<uint8_t> written(size_t(s_.m * s_.n), 0);
      const int n_tasks = int(t_[size_t(r)].tasks.size());
      for (int i = 0; i < n_tasks; ++i) {
        const int g = Global(r, i);
        const FusedTask& k = Task(g);
        if (k.kind != kPullRows) continue;
        for (int64_t row = k.row0; row < k.row0 + k.rows; ++row) {
          if (row / mb == r || k.src != row / mb) {
            return Status::Invalid("fused schedule: " + Name(g) + " pulls row " + std::to_string(row) + " from rank " +
                                   std::to_string(k.src) + ", which does not hold it as input");
          }
          if (pulled[size_t(row)] >= 0) {
            return Status::Invalid("fused schedule: row " + std::to_string(row) + " of A is pulled twice on rank " +
                                   std::to_string(r));
          }
          pulled[size_t(row)] = g;
        }
      }
      for (int i = 0; i < n_tasks; ++i) {
        const int g = Global(r, i);
        const FusedTask& k = Task(g);
        if (k.kind != kGemmTile) continue;
        for (int64_t row = k.row0; row < k.row0 + k.rows; ++row) {
          if (row / mb == r) continue;
          const int from = pulled[size_t(row)];
          if (from < 0 || !Before(from, g)) {
            return Status::Invalid("fused schedule: " + Name(g) + " reads row " + std::to_string(row) + " of A " +
                                   (from < 0 ? "that is never pulled" : "before " + Name(from) + " is known to end"));
          }
          for (int64_t col = k.col0; col < k.col0 + k.cols; ++col) ++written[size_t(row * s_.n + col)];
        }
        for (int64_t row = k.row0; row < k.row0 + k.rows; ++row) {
          if (row / mb != r) continue;
          for (int64_t col = k.col0; col < k.col0 + k.cols; ++col) ++written[size_t(row * s_.n + col)];
        }
      }
      BRAID_RETURN_IF_ERROR(Once(written, r, "output", s_.n));
    }
    return Status::Ok();
  }

  Status Once(const std::vector<uint8_t>& written, int r, const char* what, int64_t cols) const {
    for (size_t e = 0; e < written.size(); ++e) {
      if (written[e] != 1) {
        return Status::Invalid("fused schedule: " + std::string(what) + " element (" +
                               std::to_string(int64_t(e) / cols) + ", " + std::to_string(int64_t(e) % cols) +
                               ") of rank " + std::to_string(r) + " is written " + std::to_string(int(written[e])) +
                               " times");
      }
    }
    return Status::Ok();
  }

  Status RsData() {
    const int64_t mb = s_.block_rows();
    // producer[q][cell]: the task of rank q writing its partial cell.
    std::vector<std::vector<int>> producer(size_t(s_.ranks), std::vector<int>(size_t(s_.m * s_.n), -1));
    for (int q = 0; q < s_.ranks; ++q) {
      std::vector<uint8_t> written(size_t(s_.m * s_.n), 0);
      for (int i = 0; i < int(t_[size_t(q)].tasks.size()); ++i) {
        const int g = Global(q, i);
        const FusedTask& k = Task(g);
        if (k.kind != kGemmTile) continue;
        for (int64_t row = k.row0; row < k.row0 + k.rows; ++row) {
          for (int64_t col = k.col0; col < k.col0 + k.cols; ++col) {
            ++written[size_t(row * s_.n + col)];
            producer[size_t(q)][size_t(row * s_.n + col)] = g;
          }
        }
      }
      BRAID_RETURN_IF_ERROR(Once(written, q, "partial", s_.n));
    }
    for (int r = 0; r < s_.ranks; ++r) {
      std::vector<uint8_t> written(size_t(mb * s_.n), 0);
      for (int i = 0; i < int(t_[size_t(r)].tasks.size()); ++i) {
        const int g = Global(r, i);
        const FusedTask& k = Task(g);
        if (k.kind != kReduceTile) continue;
        if (k.row0 / mb != r || (k.row0 + k.rows - 1) / mb != r) {
          return Status::Invalid("fused schedule: " + Name(g) + " reduces rows outside rank " + std::to_string(r) +
                                 "'s block");
        }
        for (int64_t row = k.row0; row < k.row0 + k.rows; ++row) {
          for (int64_t col = k.col0; col < k.col0 + k.cols; ++col) {
            ++written[size_t((row - r * mb) * s_.n + col)];
            for (int q = 0; q < s_.ranks; ++q) {
              const int from = producer[size_t(q)][size_t(row * s_.n + col)];
              if (!Before(from, g)) {
                return Status::Invalid("fused schedule: " + Name(g) + " reads rank " + std::to_string(q) +
                                       "'s partial (" + std::to_string(row) + ", " + std::to_string(col) + ") before " +
                                       Name(from) + " is known to end");
              }
            }
          }
        }
      }
      BRAID_RETURN_IF_ERROR(Once(written, r, "reduced output", s_.n));
    }
    return Status::Ok();
  }

  const FusedShape& s_;
  const std::vector<RankTables>& t_;
  std::vector<TaskRef> refs_;
  std::vector<int> first_;
  std::map<std::pair<int, int>, int> setter_;
  std::vector<std::vector<int>> preds_;
  std::vector<int> order_;
  std::vector<std::vector<uint64_t>> hb_;
};

}  // namespace

Status CheckFusedSchedule(const FusedShape& s, const std::vector<RankTables>& ranks) { return Proof(s, ranks).Run(); }

}  // namespace braid::cuda::fused
