// The fake of the fused kernel: every rank's launch of one epoch runs
// together once all of them reached their stream's head, executing the
// uploaded tables on host memory with the kernel's rules (fused_kernel.cu):
// a CTA's next task runs only when its flags hold the epoch, flags are raised
// after the task (except the never_set_flag test hook), and a state where no
// CTA can move is the kernel's timeout: each stuck rank writes its error record.
#include <cstring>

#include "../host/dtype_convert.h"
#include "fake_world.h"

namespace braid::cuda {

namespace {

using fused::FlagRef;
using fused::FusedError;
using fused::FusedTask;

DType DTypeOf(const FusedLaunch& l) { return l.dtype == 1 ? DType::kFp16 : DType::kBf16; }

// One rank's kernel while it runs.
struct RankRun {
  const FusedLaunch* l = nullptr;
  std::vector<int> next;  // per CTA: index of its next task
  bool failed = false;
};

bool Ready(const RankRun& rr, const FusedTask& t) {
  for (int w = 0; w < t.wait_count; ++w) {
    const FlagRef f = rr.l->waits[t.wait_begin + w];
    if (rr.l->flags[f.rank][f.index] < rr.l->epoch) return false;
  }
  return true;
}

void GemmTile(const FusedLaunch& l, const FusedTask& t) {
  const DType d = DTypeOf(l);
  void* c = l.op == 0 ? l.out : l.partial[l.rank];
  for (int r = 0; r < t.rows; ++r) {
    for (int j = 0; j < t.cols; ++j) {
      float acc = 0;
      for (int k = 0; k < l.k; ++k) {
        acc += LoadOne(d, l.a[l.rank], size_t(t.row0 + r) * size_t(l.k) + size_t(k)) *
               LoadOne(d, l.b, size_t(k) * size_t(l.n) + size_t(t.col0 + j));
      }
      StoreOne(d, acc, c, size_t(t.row0 + r) * size_t(l.n) + size_t(t.col0 + j));
    }
  }
}

void PullRows(const FusedLaunch& l, const FusedTask& t) {
  const size_t off = size_t(t.row0) * size_t(l.k) * 2, bytes = size_t(t.rows) * size_t(l.k) * 2;
  std::memcpy(static_cast<char*>(l.a[l.rank]) + off, static_cast<const char*>(l.a[t.src]) + off, bytes);
}

void ReduceTile(const FusedLaunch& l, const FusedTask& t) {
  const DType d = DTypeOf(l);
  const int mb = l.m / l.ranks;
  for (int r = 0; r < t.rows; ++r) {
    for (int j = 0; j < t.cols; ++j) {
      const size_t at = size_t(t.row0 + r) * size_t(l.n) + size_t(t.col0 + j);
      float sum = 0;
      for (int q = 0; q < l.ranks; ++q) sum += LoadOne(d, l.partial[q], at);
      StoreOne(d, sum, l.out, size_t(t.row0 - l.rank * mb + r) * size_t(l.n) + size_t(t.col0 + j));
    }
  }
}

// The first stuck CTA's task and the flag it waits on, as the kernel records it.
void RecordTimeout(RankRun& rr) {
  const FusedLaunch& l = *rr.l;
  for (size_t c = 0; c < rr.next.size(); ++c) {
    const int i = rr.next[c];
    if (i >= l.cta_begin[c + 1]) continue;
    const FusedTask& t = l.tasks[i];
    for (int w = 0; w < t.wait_count; ++w) {
      const FlagRef f = l.waits[t.wait_begin + w];
      if (l.flags[f.rank][f.index] >= l.epoch) continue;
      FusedError e;
      e.code = 1;
      e.rank = l.rank;
      e.task = i;
      e.flag_rank = f.rank;
      e.flag_index = f.index;
      e.row0 = t.row0;
      e.col0 = t.col0;
      *l.error = e;
      rr.failed = true;
      return;
    }
  }
}

class FakeFused : public FusedKernelApi {
 public:
  explicit FakeFused(std::shared_ptr<FakeGpu::World> w) : w_(std::move(w)) {}

  Status Launch(const FusedLaunch& l, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "fused kernel launch");
    if (i < 0) return Error();
    if (l.ctas <= 0 || l.ranks < 2 || l.ranks > fused::kMaxRanks || l.rank < 0 || l.rank >= l.ranks) {
      return Status::Internal("fused kernel launch: bad launch parameters");
    }
    BRAID_RETURN_IF_ERROR(CheckMemory(i, l));
    FakeOp op;
    op.kind = OpKind::kFused;
    op.what = l.op == 0 ? "braid_fused_ag_gemm" : "braid_fused_gemm_rs";
    op.fused = l;
    ++w_->stats.fused_launches;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

 private:
  // Everything the kernel will touch lies in live memory this device may reach.
  Status CheckMemory(int stream, const FusedLaunch& l) {
    const std::string what = "fused kernel (" + ThisThread().label + ")";
    const size_t es = 2, m = size_t(l.m), n = size_t(l.n), k = size_t(l.k);
    bool ok = w_->CheckAccess(stream, l.cta_begin, size_t(l.ctas + 1) * sizeof(int32_t), what) &&
              w_->CheckAccess(stream, l.error, sizeof(FusedError), what) &&
              w_->CheckAccess(stream, l.b, k * n * es, what);
    if (ok) {
      const int tasks = l.cta_begin[l.ctas];
      ok = w_->CheckAccess(stream, l.tasks, size_t(tasks) * sizeof(FusedTask), what);
      for (int t = 0; ok && t < tasks; ++t) {
        const FusedTask& task = l.tasks[t];
        if (task.wait_count > 0) {
          ok = w_->CheckAccess(stream, l.waits + task.wait_begin, size_t(task.wait_count) * sizeof(FlagRef), what);
        }
      }
    }
    for (int q = 0; ok && q < l.ranks; ++q) {
      ok = w_->CheckAccess(stream, l.flags[q], sizeof(uint32_t), what) &&
           (l.op == 0 ? w_->CheckAccess(stream, l.a[q], m * k * es, what)
                      : w_->CheckAccess(stream, l.partial[q], m * n * es, what));
    }
    if (ok) ok = w_->CheckAccess(stream, l.out, (l.op == 0 ? m : m / size_t(l.ranks)) * n * es, what);
    if (ok && l.op == 1) ok = w_->CheckAccess(stream, l.a[l.rank], m * k * es, what);
    return ok ? Status::Ok() : Error();
  }

  Status Error() {
    if (w_->error.empty()) w_->Fail("fused kernel launch failed");
    return Status::Internal(w_->error);
  }

  std::shared_ptr<FakeGpu::World> w_;
};

}  // namespace

std::shared_ptr<FusedKernelApi> MakeFakeFused(std::shared_ptr<FakeGpu::World> w) {
  return std::make_shared<FakeFused>(std::move(w));
}

bool FakeGpu::World::RunFused(int s) {
  // The launch's ranks: kernels of the same epoch over the same flag arrays.
  const FusedLaunch& mine = *streams[size_t(s)].ops.front().fused;
  std::vector<int> member(size_t(mine.ranks), -1);
  for (size_t i = 0; i < streams.size(); ++i) {
    const FakeStream& st = streams[i];
    if (st.ops.empty() || st.ops.front().kind != OpKind::kFused) continue;
    const FusedLaunch& l = *st.ops.front().fused;
    if (l.flags[0] == mine.flags[0] && l.epoch == mine.epoch && l.ranks == mine.ranks) member[size_t(l.rank)] = int(i);
  }
  for (int m : member) {
    if (m < 0) return false;  // a rank's kernel has not reached its stream's head yet
  }
  std::vector<RankRun> runs;
  for (int m : member) {
    RankRun rr;
    rr.l = &*streams[size_t(m)].ops.front().fused;
    for (int c = 0; c < rr.l->ctas; ++c) rr.next.push_back(rr.l->cta_begin[c]);
    runs.push_back(std::move(rr));
  }
  // Interleave CTAs of every rank in random order until none can move.
  for (;;) {
    std::vector<std::pair<int, int>> ready;  // (rank, cta)
    for (size_t r = 0; r < runs.size(); ++r) {
      const FusedLaunch& l = *runs[r].l;
      for (int c = 0; c < l.ctas; ++c) {
        const int i = runs[r].next[size_t(c)];
        if (i < l.cta_begin[c + 1] && Ready(runs[r], l.tasks[i])) ready.push_back({int(r), c});
      }
    }
    if (ready.empty()) break;
    const auto [r, c] = ready[size_t(rng() % ready.size())];
    RankRun& rr = runs[size_t(r)];
    const FusedLaunch& l = *rr.l;
    const FusedTask& t = l.tasks[rr.next[size_t(c)]++];
    if (t.kind == fused::kGemmTile) {
      GemmTile(l, t);
    } else if (t.kind == fused::kPullRows) {
      PullRows(l, t);
    } else {
      ReduceTile(l, t);
    }
    if (t.sets >= 0 && t.sets != l.never_set_flag) l.flags[l.rank][t.sets] = l.epoch;
    ++stats.fused_tasks;
  }
  int64_t start = 0;
  for (int m : member) start = std::max(start, streams[size_t(m)].clock);
  for (size_t r = 0; r < runs.size(); ++r) {
    RecordTimeout(runs[r]);
    if (runs[r].failed) ++stats.fused_timeouts;
    FakeStream& st = streams[size_t(member[r])];
    st.clock = start + 10 + int64_t(runs[r].l->cta_begin[runs[r].l->ctas]);
    Emit(member[r], st.ops.front(), start, st.clock);
  }
  for (int m : member) streams[size_t(m)].ops.pop_front();
  return true;
}

}  // namespace braid::cuda
