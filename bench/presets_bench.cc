// Runtime preset lookup on a 1000-entry table: exact hits and nearest-shape
// misses, all entries in one (gpu, topology, tp, op, dtype) group, which is
// the worst case for the scan. Goal: <= 1 µs per lookup.
// Run: build/release/bench/braid_presets_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "braid/presets.h"

namespace {

braid::Workload Shape(int i) {
  braid::Workload w;
  w.op = braid::Op::kGemmRs;
  w.dtype = braid::DType::kBf16;
  w.tp = 8;
  w.m = 1024 * (1 + i % 10);
  w.n = 1024 * (1 + (i / 10) % 10);
  w.k = 8192 * (1 + i / 100);
  return w;
}

braid::PresetTable Table() {
  braid::PresetFile f;
  for (int i = 0; i < 1000; ++i) {
    braid::Preset p;
    p.key.gpu = "h100-sxm";
    p.key.topology = "h100-sxm";
    p.key.workload = Shape(i);
    p.config.algorithm = braid::Algorithm::kRing;
    p.time_ns = 1000 + i;
    p.date = "2026-11-21";
    f.presets.push_back(p);
  }
  // Other groups, so that the hash map has more than one bucket in use.
  for (int i = 0; i < 64; ++i) {
    braid::Preset p;
    p.key.gpu = "a100-sxm";
    p.key.topology = "topo-" + std::to_string(i);
    p.key.workload = Shape(i);
    p.date = "2026-11-21";
    f.presets.push_back(p);
  }
  return braid::PresetTable::FromFile(std::move(f));
}

void Run(benchmark::State& state, bool exact) {
  const braid::PresetTable table = Table();
  std::vector<braid::Workload> queries;
  for (int i = 0; i < 1000; i += 7) {
    braid::Workload w = Shape(i);
    if (!exact) w.m += 512;  // between two entries
    queries.push_back(w);
  }
  size_t q = 0;
  for (auto _ : state) {
    braid::LookupResult r = table.Lookup(queries[q], "h100-sxm", "h100-sxm");
    benchmark::DoNotOptimize(r);
    if (++q == queries.size()) q = 0;
  }
  const braid::LookupResult check = table.Lookup(queries[0], "h100-sxm", "h100-sxm");
  if (check.match != (exact ? braid::PresetMatch::kExact : braid::PresetMatch::kNearest)) {
    state.SkipWithError("unexpected match kind");
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("Time = ns per lookup");
}

void BM_LookupExact(benchmark::State& state) { Run(state, true); }
void BM_LookupNearest(benchmark::State& state) { Run(state, false); }

BENCHMARK(BM_LookupExact)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_LookupNearest)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
