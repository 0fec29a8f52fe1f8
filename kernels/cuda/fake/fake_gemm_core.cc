// The fake of the GEMM core (braid/gemm_core_api.h): a launch checks that
// its operands and tables lie in memory its device reaches and that the tile
// order hands out every tile of the plan's scheduler exactly once; it runs
// once every arrival step's flag it waits for holds the epoch, computing
// c = a·b in fp32 on host memory, rounded to the type once (as the kernel's
// fp32 accumulators are). A launch whose flags stay down ends as the kernel
// does (TimeOutCoreGemms): 1 + the first missing step in its record, then
// a failed launch.
#include <cstring>
#include <set>

#include "../host/dtype_convert.h"
#include "fake_world.h"

namespace braid::cuda {

namespace {

// The first arrival step (in hand-out order) whose flag is below the epoch, or -1.
int FirstMissingStep(const CoreGemmLaunch& l, int64_t tiles) {
  if (l.wait.order == nullptr) return -1;
  for (int64_t i = 0; i < tiles; ++i) {
    const int32_t step = l.wait.step[i];
    // The kernel compares as an unsigned >= (flags only grow within a run).
    if (step > 0 && l.wait.flags[step] < l.wait.epoch) return step;
  }
  return -1;
}

int64_t TilesOf(const CoreGemmLaunch& l) {
  auto plan = gemm::PlanGemm(l.problem, l.device);
  return plan.ok() ? plan->scheduler.total() : 0;
}

class FakeGemmCore : public GemmCoreApi {
 public:
  explicit FakeGemmCore(std::shared_ptr<FakeGpu::World> w) : w_(std::move(w)) {}
  ~FakeGemmCore() override {
    for (uint32_t* r : records_) delete r;
  }

  Status Launch(const CoreGemmLaunch& l, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "GEMM core launch");
    if (i < 0) return Error();
    auto plan = gemm::PlanGemm(l.problem, l.device);
    if (!plan.ok()) return Status::Internal("GEMM core launch of an unplannable problem: " + plan.status().message());
    BRAID_RETURN_IF_ERROR(CheckMemory(i, l, plan->problem, plan->scheduler.total()));
    if (!w_->LoadKernel(i, "braid_gemm_core")) return Error();
    FakeOp op;
    op.kind = OpKind::kCoreGemm;
    op.what = "braid_gemm_core";
    op.duration = int64_t(l.problem.m * l.problem.n / 1000 + 4);
    op.core = l;
    op.core->problem = plan->problem;  // leading dimensions filled in
    ++w_->stats.core_launches;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Result<uint32_t*> NewTimeoutRecord() override {
    std::lock_guard<std::mutex> lock(w_->mu);
    auto* record = new uint32_t(0);
    records_.insert(record);
    return record;
  }
  uint32_t ReadTimeoutRecord(const uint32_t* record) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    return *record;
  }
  void FreeTimeoutRecord(uint32_t* record) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    if (records_.erase(record) > 0) delete record;
  }

 private:
  Status CheckMemory(int stream, const CoreGemmLaunch& l, const gemm::GemmProblem& p, int64_t tiles) {
    const std::string what = "GEMM core (" + ThisThread().label + ")";
    const size_t es = 2;
    bool ok = w_->CheckAccess(stream, l.a, size_t((p.m - 1) * p.lda + p.k) * es, what) &&
              w_->CheckAccess(stream, l.b, size_t((p.k - 1) * p.ldb + p.n) * es, what) &&
              w_->CheckAccess(stream, l.c, size_t((p.m - 1) * p.ldc + p.n) * es, what);
    if (ok && l.wait.order != nullptr) {
      ok = w_->CheckAccess(stream, l.wait.order, size_t(tiles) * sizeof(int64_t), what) &&
           w_->CheckAccess(stream, l.wait.step, size_t(tiles) * sizeof(int32_t), what);
      if (ok) {
        std::set<int64_t> seen;
        int32_t steps = 0;
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t tile = l.wait.order[t];
          if (tile < 0 || tile >= tiles || !seen.insert(tile).second) {
            w_->Fail(what + ": the tile order hands out tile " + std::to_string(tile) + " twice or out of range");
            return Error();
          }
          steps = std::max(steps, l.wait.step[t] + 1);
        }
        ok = w_->CheckAccess(stream, l.wait.flags, size_t(steps) * sizeof(uint32_t), what);
      }
      if (ok && records_.count(l.wait.timed_out) == 0) {
        w_->Fail(what + ": its timeout record is not one NewTimeoutRecord made");
        return Error();
      }
    }
    return ok ? Status::Ok() : Error();
  }

  Status Error() {
    if (w_->error.empty()) w_->Fail("GEMM core launch failed");
    return Status::Internal(w_->error);
  }

  std::shared_ptr<FakeGpu::World> w_;
  std::set<uint32_t*> records_;
};

}  // namespace

std::shared_ptr<GemmCoreApi> MakeFakeGemmCore(std::shared_ptr<FakeGpu::World> w) {
  return std::make_shared<FakeGemmCore>(std::move(w));
}

bool FakeGpu::World::RunCoreGemm(int s) {
  FakeStream& st = streams[size_t(s)];
  FakeOp& op = st.ops.front();
  const CoreGemmLaunch& l = *op.core;
  if (FirstMissingStep(l, TilesOf(l)) >= 0) {
    if (!op.waiting_since) op.waiting_since = std::chrono::steady_clock::now();
    return false;
  }
  const gemm::GemmProblem& p = l.problem;
  const DType d = p.dtype;
  std::vector<float> row(size_t(p.n));
  for (int64_t i = 0; i < p.m; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (int64_t k = 0; k < p.k; ++k) {
      const float a = LoadOne(d, l.a, size_t(i * p.lda + k));
      for (int64_t j = 0; j < p.n; ++j) row[size_t(j)] += a * LoadOne(d, l.b, size_t(k * p.ldb + j));
    }
    for (int64_t j = 0; j < p.n; ++j) StoreOne(d, row[size_t(j)], l.c, size_t(i * p.ldc + j));
  }
  // Flags written by copy streams take effect at their time: the GEMM starts after the last one.
  int64_t start = st.clock;
  if (l.wait.order != nullptr) {
    const int64_t tiles = TilesOf(l);
    for (int64_t t = 0; t < tiles; ++t) {
      auto at = flag_time.find(l.wait.flags + l.wait.step[t]);
      if (l.wait.step[t] > 0 && at != flag_time.end()) start = std::max(start, at->second);
    }
  }
  st.clock = start + op.duration;
  Emit(s, op, start, st.clock);
  st.ops.pop_front();
  return true;
}

bool FakeGpu::World::TimeOutCoreGemms() {
  bool any = false;
  const auto now = std::chrono::steady_clock::now();
  for (FakeStream& st : streams) {
    if (st.ops.empty() || st.ops.front().kind != OpKind::kCoreGemm) continue;
    FakeOp& op = st.ops.front();
    const CoreGemmLaunch& l = *op.core;
    const int missing = FirstMissingStep(l, TilesOf(l));
    if (missing < 0 || !op.waiting_since) continue;
    const bool expired = now - *op.waiting_since > std::chrono::nanoseconds(l.wait.timeout_ns);
    if (!config.report_hangs && !expired) continue;
    *l.wait.timed_out = uint32_t(missing) + 1;
    ++stats.core_timeouts;
    Fail("unspecified launch failure (the GEMM core trapped: " + op.label + ")");
    st.ops.pop_front();  // the trap ended the launch; the failure is sticky
    any = true;
  }
  return any;
}

}  // namespace braid::cuda
