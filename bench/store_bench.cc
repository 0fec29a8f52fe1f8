// Run store throughput (db/): how fast a run goes in and comes back out.
//
//   BM_WriteRun           one 1,000,000-event run per iteration, in one
//                         transaction; goal >= 1,000,000 events/s
//   BM_Load/and_summarize LoadEvents of a stored 1,000,000-event run plus
//                         ComputeRunMetrics over it; goal < 1 s
//   BM_Load/events        the load alone
//
// The run is bench/ring_run.h's, shared with the viewer benchmark.
//
// The store lives in a scratch directory under $TMPDIR (or /tmp), on a real
// file system: every figure includes SQLite's I/O (WAL, synchronous=NORMAL,
// checkpoints). Run: build/release/bench/braid_store_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/store.h"
#include "ring_run.h"

namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("braid_store_bench_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string Path(const char* name) const { return (dir / name).string(); }
};

const std::vector<braid::Event>& Run() {
  static const std::vector<braid::Event> events = braid::bench::MakeRingRun();
  return events;
}

std::unique_ptr<braid::Store> OpenOrDie(const std::string& path) {
  auto s = braid::Store::Open(path);
  if (!s.ok()) {
    std::fprintf(stderr, "open %s: %s\n", path.c_str(), s.status().message().c_str());
    std::exit(1);
  }
  return std::move(*s);
}

void BM_WriteRun(benchmark::State& state) {
  Scratch scratch;
  auto store = OpenOrDie(scratch.Path("write.db"));
  const auto& events = Run();
  const auto metrics = braid::MetricRowsOf(braid::ComputeRunMetrics(events));
  for (auto _ : state) {
    auto id = store->WriteRun(braid::bench::RingRunMeta(), {}, events, metrics);
    if (!id.ok()) state.SkipWithError(id.status().message().c_str());
  }
  state.counters["events/s"] =
      benchmark::Counter(double(events.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel(std::to_string(events.size()) + " events + " + std::to_string(metrics.size()) +
                 " metric rows per run");
}

// Writes one run once; the load benchmarks read it back.
int64_t StoredRunId(const std::string& path) {
  auto store = OpenOrDie(path);
  auto id = store->WriteRun(braid::bench::RingRunMeta(), {}, Run(), {});
  if (!id.ok()) {
    std::fprintf(stderr, "write: %s\n", id.status().message().c_str());
    std::exit(1);
  }
  return *id;
}

// Loads the stored run back each iteration; `summarize` adds
// ComputeRunMetrics over it (what `braid report` does).
void BM_Load(benchmark::State& state, bool summarize) {
  Scratch scratch;
  const int64_t id = StoredRunId(scratch.Path("load.db"));
  auto store = OpenOrDie(scratch.Path("load.db"));
  size_t n = 0;
  for (auto _ : state) {
    auto events = store->LoadEvents(id);
    if (!events.ok()) {
      state.SkipWithError(events.status().message().c_str());
      break;
    }
    n = events->size();
    if (summarize) {
      braid::RunMetrics m = braid::ComputeRunMetrics(*events);
      benchmark::DoNotOptimize(m);
    }
    benchmark::DoNotOptimize(events);
  }
  state.counters["events/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_WriteRun)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK_CAPTURE(BM_Load, events, false)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Load, and_summarize, true)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
