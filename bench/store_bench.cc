// Run store throughput (db/): how fast a run goes in and comes back out.
//
//   BM_WriteRun           one 1,000,000-event run per iteration, in one
//                         transaction; goal >= 1,000,000 events/s
//   BM_LoadAndSummarize   LoadEvents of a stored 1,000,000-event run plus
//                         ComputeRunMetrics over it; goal < 1 s
//   BM_LoadEvents         the load alone
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

namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 8, kLanes = 2, kIterations = 25, kPerLane = 2500;  // 1,000,000 events

// A ring-like trace: compute and comm lanes per rank, ~100 distinct names,
// many longer than the small-string buffer (as a backend names its steps).
std::vector<braid::Event> MakeRun() {
  std::vector<braid::Event> events;
  events.reserve(size_t(kRanks) * kLanes * kIterations * kPerLane);
  for (int r = 0; r < kRanks; ++r) {
    for (int l = 0; l < kLanes; ++l) {
      for (int it = 0; it < kIterations; ++it) {
        for (int s = 0; s < kPerLane; ++s) {
          braid::Event& e = events.emplace_back();
          e.iteration = it;
          e.rank = r;
          e.lane = l;
          e.kind = l == 0 ? braid::EventKind::kCompute : braid::EventKind::kComm;
          e.name = (l == 0 ? "gemm_rs gemm step " : "gemm_rs send step ") + std::to_string(s % 50);
          e.start_ns = int64_t(it) * 50'000'000 + int64_t(s) * 18'000 + l * 3'000;
          e.end_ns = e.start_ns + 15'000 + s % 7;
          e.bytes = l == 0 ? 0 : 4 << 20;
          e.flops = l == 0 ? 2.0 * 4096 * 1024 * 8192 : 0;
          e.chunk = s % 4;
          e.step = s % 7;
          e.peer = l == 0 ? -1 : (r + 1) % kRanks;
          e.correlation = l == 0 ? -1 : int64_t(it) * 1'000'000 + r * 10'000 + s;
        }
      }
    }
  }
  return events;
}

braid::RunMeta Meta() {
  braid::RunMeta m;
  m.backend = "sim";
  m.topology = "h100-sxm";
  m.workload = {braid::Op::kGemmRs, 4096, 8192, 28672, braid::DType::kBf16, 8};
  m.config_json = R"({"algorithm":"ring","chunks":1})";
  m.host = "bench";
  m.iterations = kIterations;
  return m;
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("braid_store_bench_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string Path(const char* name) const { return (dir / name).string(); }
};

const std::vector<braid::Event>& Run() {
  static const std::vector<braid::Event> events = MakeRun();
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
    auto id = store->WriteRun(Meta(), {}, events, metrics);
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
  auto id = store->WriteRun(Meta(), {}, Run(), {});
  if (!id.ok()) {
    std::fprintf(stderr, "write: %s\n", id.status().message().c_str());
    std::exit(1);
  }
  return *id;
}

void BM_LoadEvents(benchmark::State& state) {
  Scratch scratch;
  const int64_t id = StoredRunId(scratch.Path("load.db"));
  auto store = OpenOrDie(scratch.Path("load.db"));
  size_t n = 0;
  for (auto _ : state) {
    auto events = store->LoadEvents(id);
    if (!events.ok()) state.SkipWithError(events.status().message().c_str());
    n = events.ok() ? events->size() : 0;
    benchmark::DoNotOptimize(events);
  }
  state.counters["events/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_LoadAndSummarize(benchmark::State& state) {
  Scratch scratch;
  const int64_t id = StoredRunId(scratch.Path("load.db"));
  auto store = OpenOrDie(scratch.Path("load.db"));
  size_t n = 0;
  for (auto _ : state) {
    auto events = store->LoadEvents(id);
    if (!events.ok()) state.SkipWithError(events.status().message().c_str());
    n = events.ok() ? events->size() : 0;
    braid::RunMetrics m = braid::ComputeRunMetrics(*events);
    benchmark::DoNotOptimize(m);
  }
  state.counters["events/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_WriteRun)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_LoadEvents)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_LoadAndSummarize)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
