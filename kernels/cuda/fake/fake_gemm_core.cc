// The fake of the GEMM core (braid/gemm_core_api.h): a launch checks that
// its operands and tables lie in memory its device reaches and that the tile
// order hands out every tile of the plan's scheduler exactly once; it runs
// once every arrival step's flag it waits for holds the epoch, computing
// c = a·b in fp32 on host memory, rounded to the type once (as the kernel's
// fp32 accumulators are), or with a scatter epilogue storing each tile into
// its owner's slot and raising the owner's counter. FP8 E4M3: a and bᵀ
// (n × k) one byte an element, both scales live, applied before the bf16
// store as the kernel's epilogue does. A reduce runs once every
// counter of its block holds epoch·ranks and sums the slots in fp32. One
// whose flags stay down ends as the kernel does (TimeOutCoreGemms): 1 + the
// first missing step (or counter) in its record, then a failed launch.
#include <cstring>
#include <set>

#include "../host/dtype_convert.h"
#include "fake_world.h"
#include "gemm/scatter_tables.h"

namespace braid::cuda {

namespace {

// The first arrival step (in hand-out order) whose flag is below the epoch, or -1.
// Orders without flags (a reduce-scatter's stagger) never wait.
int FirstMissingStep(const CoreGemmLaunch& l, int64_t tiles) {
  if (l.wait.flags == nullptr) return -1;
  for (int64_t i = 0; i < tiles; ++i) {
    const int32_t step = l.wait.step[i];
    // The kernel compares as an unsigned >= (flags only grow within a run).
    if (step > 0 && l.wait.flags[step] < l.wait.epoch) return step;
  }
  return -1;
}

gemm::TileScheduler SchedulerOf(const CoreGemmLaunch& l) {
  auto plan = gemm::PlanGemm(l.problem, l.device);
  return plan.ok() ? plan->scheduler : gemm::TileScheduler{.m = 0, .n = 0};
}

int64_t TilesOf(const CoreGemmLaunch& l) { return SchedulerOf(l).total(); }

// The first counter of the reduce's block below epoch·ranks, or -1.
int64_t FirstMissingCounter(const gemm::PartialReduce& r) {
  const gemm::TileScheduler block = gemm::ReduceScheduler(r);
  const uint32_t target = r.epoch * uint32_t(r.ranks);
  for (int64_t t = 0; t < block.total(); ++t) {
    const int64_t counter = gemm::ReduceCounter(block, block.TileAt(t));
    if (r.counters[counter] < target) return counter;
  }
  return -1;
}

int64_t CountersOf(const gemm::PartialReduce& r) { return gemm::ReduceScheduler(r).total(); }

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
    if (l.scatter.ranks != 0) {
      const Status scatter = gemm::CheckScatterEpilogue(plan->scheduler, l.scatter);
      if (!scatter.ok()) return Status::Invalid(scatter.message());
    }
    BRAID_RETURN_IF_ERROR(CheckMemory(i, l, plan->problem, plan->scheduler));
    if (!w_->LoadKernel(i, "braid_gemm_core")) return Error();
    FakeOp op;
    op.kind = OpKind::kCoreGemm;
    // The kernel's own name, as CUPTI records it (tile_group_events.h finds the launch by it).
    op.what = plan->config.arch == gemm::GemmArch::kSm90a ? "GemmSm90Kernel" : "GemmSm80Kernel";
    op.duration = int64_t(l.problem.m * l.problem.n / 1000 + 4);
    op.core = l;
    op.core->problem = plan->problem;  // leading dimensions filled in
    ++w_->stats.core_launches;
    if (l.wait.times.first_start != nullptr) ++w_->stats.core_stamped_launches;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Status LaunchReduce(const gemm::PartialReduce& r, int ctas, GpuStream s) override {
    BRAID_RETURN_IF_ERROR(gemm::CheckPartialReduce(r));
    if (ctas < 1) return Status::Invalid("the partial reduce needs at least one CTA");
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "partial reduce launch");
    if (i < 0) return Error();
    const std::string what = "partial reduce (" + ThisThread().label + ")";
    const size_t block = size_t(r.block_rows * r.n) * 2;
    if (!w_->CheckAccess(i, r.slots, block * size_t(r.ranks), what) || !w_->CheckAccess(i, r.out, block, what) ||
        !w_->CheckAccess(i, r.counters, size_t(CountersOf(r)) * sizeof(uint32_t), what)) {
      return Error();
    }
    if (records_.count(r.timed_out) == 0) {
      w_->Fail(what + ": its timeout record is not one NewTimeoutRecord made");
      return Error();
    }
    if (!w_->LoadKernel(i, "braid_partial_reduce")) return Error();
    FakeOp op;
    op.kind = OpKind::kCoreReduce;
    op.what = "braid_partial_reduce";
    op.duration = int64_t(r.block_rows * r.n / 1000 + 2);
    op.reduce = r;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Status LaunchPulls(const gemm::RowPullLaunch& k, int ctas, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "pull kernel launch");
    if (i < 0) return Error();
    if (ctas < 1 || k.count < 0) return Status::Internal("pull kernel launch: bad launch parameters");
    const std::string what = "pull kernel (" + ThisThread().label + ")";
    bool ok = k.count == 0 || (w_->CheckAccess(i, k.pulls, size_t(k.count) * sizeof(gemm::RowPull), what) &&
                               w_->CheckAccess(i, k.done, size_t(k.count) * sizeof(uint32_t), what));
    for (int p = 0; ok && p < k.count; ++p) {
      const gemm::RowPull& pull = k.pulls[p];
      ok = pull.bytes % 16 == 0 && w_->CheckAccess(i, pull.src, size_t(pull.bytes), what) &&
           w_->CheckAccess(i, pull.dst, size_t(pull.bytes), what) &&
           w_->CheckAccess(i, k.flags + pull.flag, sizeof(uint32_t), what);
    }
    if (!ok) return Error();
    if (!w_->LoadKernel(i, "braid_row_pull")) return Error();
    FakeOp op;
    op.kind = OpKind::kCorePulls;
    op.what = "braid_row_pull";
    op.pulls = k;
    op.pull_ctas = ctas;
    int64_t bytes = 0;
    for (int p = 0; p < k.count; ++p) bytes += k.pulls[p].bytes;
    op.duration = bytes / 10000 + 2;
    ++w_->stats.core_pull_launches;
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
  Status CheckMemory(int stream, const CoreGemmLaunch& l, const gemm::GemmProblem& p,
                     const gemm::TileScheduler& sched) {
    const std::string what = "GEMM core (" + ThisThread().label + ")";
    // FP8: one-byte a (m × k) and bᵀ (n × k, K-major), bf16 c, both scales.
    const bool fp8 = IsFp8(p.dtype);
    const size_t in = size_t(DTypeBytes(p.dtype)), out = size_t(DTypeBytes(GemmOutDType(p.dtype)));
    const int64_t tiles = sched.total();
    bool ok =
        w_->CheckAccess(stream, l.a, size_t((p.m - 1) * p.lda + p.k) * in, what + " A") &&
        w_->CheckAccess(stream, l.b, fp8 ? size_t((p.n - 1) * p.ldb + p.k) * in : size_t((p.k - 1) * p.ldb + p.n) * in,
                        what + (fp8 ? " B^T" : " B"));
    if (ok && fp8) {
      if (l.scales.a == nullptr || l.scales.b == nullptr) {
        w_->Fail(what + ": an FP8 launch without both per-tensor scales");
        return Error();
      }
      ok = w_->CheckAccess(stream, l.scales.a, sizeof(float), what + " A scale") &&
           w_->CheckAccess(stream, l.scales.b, sizeof(float), what + " B scale");
    }
    if (ok && l.scatter.ranks == 0) ok = w_->CheckAccess(stream, l.c, size_t((p.m - 1) * p.ldc + p.n) * out, what);
    for (int q = 0; ok && q < l.scatter.ranks; ++q) {
      const int64_t counters = (l.scatter.block_rows / sched.tile_m) * sched.tiles_n();
      ok = w_->CheckAccess(stream, l.scatter.slots[q], size_t(p.m * p.n) * out, what) &&
           w_->CheckAccess(stream, l.scatter.counters[q], size_t(counters) * sizeof(uint32_t), what);
    }
    if (ok && l.wait.order != nullptr) {
      ok = w_->CheckAccess(stream, l.wait.order, size_t(tiles) * sizeof(int64_t), what) &&
           (l.wait.step == nullptr || w_->CheckAccess(stream, l.wait.step, size_t(tiles) * sizeof(int32_t), what));
      if (ok) {
        std::set<int64_t> seen;
        int32_t steps = 0;
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t tile = l.wait.order[t];
          if (tile < 0 || tile >= tiles || !seen.insert(tile).second) {
            w_->Fail(what + ": the tile order hands out tile " + std::to_string(tile) + " twice or out of range");
            return Error();
          }
          if (l.wait.step != nullptr) steps = std::max(steps, l.wait.step[t] + 1);
        }
        if (l.wait.flags != nullptr) ok = w_->CheckAccess(stream, l.wait.flags, size_t(steps) * sizeof(uint32_t), what);
      }
      if (ok && l.wait.flags != nullptr && records_.count(l.wait.timed_out) == 0) {
        w_->Fail(what + ": its timeout record is not one NewTimeoutRecord made");
        return Error();
      }
    }
    const gemm::TileTimes& times = l.wait.times;
    if (ok && times.first_start != nullptr) {
      // Every position's group inside the stamp arrays, which both hold that many.
      int32_t groups = 0;
      ok = w_->CheckAccess(stream, times.group, size_t(tiles) * sizeof(int32_t), what);
      for (int64_t t = 0; ok && t < tiles; ++t) {
        if (times.group[t] < 0) {
          w_->Fail(what + ": tile group " + std::to_string(times.group[t]) + " is negative");
          return Error();
        }
        groups = std::max(groups, times.group[t] + 1);
      }
      ok = ok && w_->CheckAccess(stream, times.first_start, size_t(groups) * sizeof(uint64_t), what) &&
           w_->CheckAccess(stream, times.last_end, size_t(groups) * sizeof(uint64_t), what);
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
  const bool fp8 = IsFp8(p.dtype);
  const DType d = GemmOutDType(p.dtype);  // of c and the scattered partials
  std::vector<float> product(size_t(p.m * p.n), 0.0f);
  for (int64_t i = 0; i < p.m; ++i) {
    float* row = product.data() + i * p.n;
    for (int64_t k = 0; k < p.k; ++k) {
      const float a = LoadOne(p.dtype, l.a, size_t(i * p.lda + k));
      // FP8: b is bᵀ, n rows of k.
      for (int64_t j = 0; j < p.n; ++j)
        row[j] += a * LoadOne(p.dtype, l.b, size_t(fp8 ? j * p.ldb + k : k * p.ldb + j));
    }
  }
  if (fp8) {
    // The codes' exact values summed in fp32, then × a_scale·b_scale in the
    // epilogue (read when the kernel runs), before the one rounding to bf16.
    const float scale = LoadOne(DType::kFp32, l.scales.a, 0) * LoadOne(DType::kFp32, l.scales.b, 0);
    for (float& v : product) v *= scale;
  }
  std::vector<const uint32_t*> raised;  // the owners' counters this launch raises
  if (l.scatter.ranks == 0) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) StoreOne(d, product[size_t(i * p.n + j)], l.c, size_t(i * p.ldc + j));
    }
  } else {
    // Each tile to its owner's slot, then the owner's counter (scatter_epilogue.h).
    const gemm::TileScheduler sched = SchedulerOf(l);
    for (int64_t t = 0; t < sched.total(); ++t) {
      const gemm::TileCoord tile = sched.TileAt(t);
      const gemm::ScatterTile to = gemm::ScatterTileOf(l.scatter, sched, tile);
      for (int64_t r = 0; r < tile.rows; ++r) {
        for (int64_t j = 0; j < tile.cols; ++j) {
          StoreOne(d, product[size_t((tile.row0 + r) * p.n + tile.col0 + j)], l.scatter.slots[to.owner],
                   size_t(to.offset + r * p.n + j));
        }
      }
      ++l.scatter.counters[to.owner][to.counter];
      raised.push_back(l.scatter.counters[to.owner] + to.counter);
    }
  }
  // Flags written by copy streams take effect at their time: the GEMM starts after the last one.
  int64_t start = st.clock;
  if (l.wait.flags != nullptr) {
    const int64_t tiles = TilesOf(l);
    for (int64_t t = 0; t < tiles; ++t) {
      auto at = flag_time.find(l.wait.flags + l.wait.step[t]);
      if (l.wait.step[t] > 0 && at != flag_time.end()) start = std::max(start, at->second);
    }
  }
  st.clock = start + op.duration;
  // Stamps as the kernel's: hand-out position i runs in the i-th equal
  // slice of the launch (the fake's GEMM is one op; its clock is the tracer's).
  const gemm::TileTimes& times = l.wait.times;
  if (times.first_start != nullptr) {
    const int64_t tiles = TilesOf(l);
    for (int64_t i = 0; i < tiles; ++i) {
      const int32_t g = times.group[i];
      times.first_start[g] = std::min(times.first_start[g], uint64_t(start + op.duration * i / tiles));
      times.last_end[g] = std::max(times.last_end[g], uint64_t(start + op.duration * (i + 1) / tiles));
    }
  }
  // A partial counts from the GEMM's end (its last tiles are the latest).
  for (const uint32_t* c : raised) counter_time[c] = std::max(counter_time[c], st.clock);
  Emit(s, op, start, st.clock);
  st.ops.pop_front();
  return true;
}

bool FakeGpu::World::RunCoreReduce(int s) {
  FakeStream& st = streams[size_t(s)];
  FakeOp& op = st.ops.front();
  const gemm::PartialReduce& r = *op.reduce;
  if (FirstMissingCounter(r) >= 0) {
    if (!op.waiting_since) op.waiting_since = std::chrono::steady_clock::now();
    return false;
  }
  const DType d = r.dtype == 1 ? DType::kFp16 : DType::kBf16;
  const size_t block = size_t(r.block_rows * r.n);
  for (size_t e = 0; e < block; ++e) {
    float sum = 0;
    for (int q = 0; q < r.ranks; ++q) sum += LoadOne(d, r.slots, size_t(q) * block + e);
    StoreOne(d, sum, r.out, e);
  }
  // The reduce consumes partials as they arrive: it ends no sooner than the
  // last one did (a step that ended at its GEMMs' end would end too soon).
  int64_t start = st.clock;
  const int64_t counters = CountersOf(r);
  for (int64_t c = 0; c < counters; ++c) {
    auto at = counter_time.find(r.counters + c);
    if (at != counter_time.end()) start = std::max(start, at->second);
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
    if (st.ops.empty()) continue;
    FakeOp& op = st.ops.front();
    int64_t missing = -1;
    uint64_t timeout_ns = 0;
    uint32_t* record = nullptr;
    if (op.kind == OpKind::kCoreGemm) {
      missing = FirstMissingStep(*op.core, TilesOf(*op.core));
      timeout_ns = op.core->wait.timeout_ns;
      record = op.core->wait.timed_out;
    } else if (op.kind == OpKind::kCoreReduce) {
      missing = FirstMissingCounter(*op.reduce);
      timeout_ns = op.reduce->timeout_ns;
      record = op.reduce->timed_out;
    }
    if (missing < 0 || !op.waiting_since) continue;
    const bool expired = now - *op.waiting_since > std::chrono::nanoseconds(timeout_ns);
    if (!config.report_hangs && !expired) continue;
    *record = uint32_t(missing) + 1;
    ++stats.core_timeouts;
    Fail("unspecified launch failure (the GEMM core trapped: " + op.label + ")");
    st.ops.pop_front();  // the trap ended the launch; the failure is sticky
    any = true;
  }
  return any;
}

}  // namespace braid::cuda
