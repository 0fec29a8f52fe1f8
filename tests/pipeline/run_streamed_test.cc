// ExecuteRunStreamed: a run whose events go into the store and the figures
// iteration by iteration stores what ExecuteRun + StoreRun store, and an
// error part-way leaves nothing of it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/run_pipeline.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"
#include "temp_dir.h"

namespace braid {
namespace run_streamed_test {
namespace {

RunRequest RingRequest(int iters) {
  RunRequest r;
  r.op = Workload{Op::kAgGemm, 4096, 4096, 4096, DType::kBf16, 4};
  r.config.algorithm = Algorithm::kBidirRing;
  r.config.chunks = 2;
  r.options.warmup = 1;
  r.options.iters = iters;
  return r;
}

SimBackend MakeSim() { return SimBackend(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm")); }

// A backend that hands over what the sim makes, counting the iterations it
// streamed, and fails in the iteration `fail_at` when set.
class CountingSim : public Backend {
 public:
  std::string_view name() const override { return "sim"; }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override {
    RunOptions o = options;
    if (options.on_iteration) {
      o.on_iteration = [&](std::vector<Event>& events) -> Status {
        if (streamed_++ == fail_at_) return Status::Internal("iteration " + std::to_string(fail_at_) + " failed");
        return options.on_iteration(events);
      };
    }
    return sim_.Run(plan, o);
  }
  int streamed_ = 0;
  int fail_at_ = -1;
  SimBackend sim_ = MakeSim();
};

TEST(RunPipelineStreamed, StoresWhatTheWholeRunStores) {
  Result<PreparedRun> prepared = PrepareRun(RingRequest(4));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  testing_files::TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());

  SimBackend sim = MakeSim();
  Result<RecordedRun> whole = ExecuteRun(*prepared, sim);
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(StoreRun(**store, *prepared, *whole).ok());
  CountingSim counting;
  Result<RecordedRun> streamed = ExecuteRunStreamed(*prepared, counting, store->get());
  ASSERT_TRUE(streamed.ok()) << streamed.status().message();
  EXPECT_EQ(counting.streamed_, 4);  // handed over one iteration at a time
  EXPECT_TRUE(streamed->output.events.empty());
  ASSERT_EQ(streamed->record.run_id, whole->record.run_id + 1);
  for (Metric m : kAllMetrics) {
    EXPECT_EQ(streamed->record.figures.metrics.overall[m].p50, whole->record.figures.metrics.overall[m].p50);
    EXPECT_EQ(streamed->record.figures.metrics.overall[m].p99, whole->record.figures.metrics.overall[m].p99);
  }
  EXPECT_EQ(streamed->record.figures.efficiency.p50, whole->record.figures.efficiency.p50);

  auto a = (*store)->LoadEvents(whole->record.run_id), b = (*store)->LoadEvents(streamed->record.run_id);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), whole->output.events.size());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    const Event &x = (*a)[i], &y = (*b)[i];
    ASSERT_TRUE(x.rank == y.rank && x.lane == y.lane && x.start_ns == y.start_ns && x.end_ns == y.end_ns &&
                x.iteration == y.iteration && x.name == y.name && x.correlation == y.correlation)
        << "event " << i;
  }
  auto ma = (*store)->LoadMetrics(whole->record.run_id), mb = (*store)->LoadMetrics(streamed->record.run_id);
  ASSERT_TRUE(ma.ok() && mb.ok());
  ASSERT_EQ(ma->size(), mb->size());
  for (size_t i = 0; i < ma->size(); ++i) {
    EXPECT_EQ((*ma)[i].name, (*mb)[i].name);
    EXPECT_EQ((*ma)[i].value, (*mb)[i].value) << (*ma)[i].name;
  }
  EXPECT_EQ((*store)->LoadLanes(streamed->record.run_id)->size(), (*store)->LoadLanes(whole->record.run_id)->size());
}

TEST(RunPipelineStreamed, AFailureHalfWayLeavesNoRunAndFreesTheStore) {
  Result<PreparedRun> prepared = PrepareRun(RingRequest(5));
  ASSERT_TRUE(prepared.ok());
  testing_files::TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());
  CountingSim failing;
  failing.fail_at_ = 3;
  Result<RecordedRun> run = ExecuteRunStreamed(*prepared, failing, store->get());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(), "iteration 3 failed");
  EXPECT_TRUE((*store)->ListRuns()->empty());
  CountingSim fine;
  Result<RecordedRun> again = ExecuteRunStreamed(*prepared, fine, store->get());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ((*store)->ListRuns()->size(), 1u);
}

// Without a store only the figures are made; a backend that does not stream
// (its events come back whole) is stored iteration by iteration all the same.
TEST(RunPipelineStreamed, NoStoreAndBackendsThatDoNotStream) {
  Result<PreparedRun> prepared = PrepareRun(RingRequest(3));
  ASSERT_TRUE(prepared.ok());
  CountingSim counting;
  Result<RecordedRun> figures_only = ExecuteRunStreamed(*prepared, counting, nullptr);
  ASSERT_TRUE(figures_only.ok());
  EXPECT_EQ(figures_only->record.run_id, -1);
  EXPECT_GT(figures_only->record.figures.metrics.overall[Metric::kMakespan].p50, 0);

  class Whole : public Backend {
   public:
    std::string_view name() const override { return "sim"; }
    Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override {
      RunOptions o = options;
      o.on_iteration = nullptr;  // as cpu and cuda: events returned whole
      return sim_.Run(plan, o);
    }
    SimBackend sim_ = MakeSim();
  } whole;
  testing_files::TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());
  Result<RecordedRun> run = ExecuteRunStreamed(*prepared, whole, store->get());
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->record.figures.metrics.overall[Metric::kMakespan].p50,
            figures_only->record.figures.metrics.overall[Metric::kMakespan].p50);
  auto stored = (*store)->GetRun(run->record.run_id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->event_count, int64_t(3 * prepared->plan.total_steps()));
}

}  // namespace
}  // namespace run_streamed_test
}  // namespace braid
