// Measures what the cpu executor costs on top of the work it runs.
//
//   executor overhead = (1-rank serial plan, per iteration) / (one direct sgemm) − 1
//   tracing overhead  = (ring plan with events) / (same plan without events) − 1,
//                       median per-iteration times, runs alternated
//   small-step cost   = median per-iteration time of a ring plan of tiny steps,
//                       where synchronisation is all there is (compare builds)
//
// Per-iteration times come from the backend's barrier-to-barrier clock, so
// buffer allocation and input generation (once per Run) are not counted.
// Run: build/release/bench/braid_executor_bench [--size=2048]
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "braid/cpu_backend.h"
#include "braid/median.h"
#include "braid/planner.h"

namespace {

int64_t g_size = 2048;

braid::Plan MakePlan(braid::Op op, braid::Algorithm algo, int64_t size, int tp, int chunks) {
  braid::Workload w{op, size, size, size, braid::DType::kFp32, tp};
  braid::OverlapConfig c;
  c.algorithm = algo;
  c.chunks = chunks;
  return braid::BuildPlan(w, c).value();
}

void BM_DirectSgemm(benchmark::State& state) {
  const int64_t n = g_size;
  std::vector<float> a(size_t(n * n)), b(size_t(n * n)), c(size_t(n * n));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto* v : {&a, &b}) std::generate(v->begin(), v->end(), [&] { return u(rng); });
  openblas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, a.data(), int(n), b.data(),
                int(n), 0.0f, c.data(), int(n));
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(c.data());
  }
}

// One benchmark iteration = one timed plan iteration inside a Run of `kIters`.
void RunPlan(benchmark::State& state, const braid::Plan& plan, bool trace) {
  constexpr int kIters = 5;
  braid::CpuBackend backend;
  braid::RunOptions opt;
  opt.warmup = 1;
  opt.iters = kIters;
  opt.trace = trace;
  for (auto _ : state) {
    auto out = backend.Run(plan, opt);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    int64_t total = 0;
    for (int64_t ns : out->iteration_ns) total += ns;
    state.SetIterationTime(double(total) / 1e9 / kIters);
  }
}

void BM_ExecutorSerialOneRank(benchmark::State& state) {
  RunPlan(state, MakePlan(braid::Op::kGemmRs, braid::Algorithm::kSerial, g_size, 1, 1), true);
}

// Tracing on vs off, alternated run by run so that drift in the machine's
// speed hits both sides alike. A ring plan with many steps on several lanes.
void BM_TracingOverhead(benchmark::State& state) {
  const braid::Plan plan = MakePlan(braid::Op::kGemmRs, braid::Algorithm::kRing, state.range(0), 2, 4);
  braid::CpuBackend backend;
  braid::RunOptions opt;
  opt.warmup = 1;
  opt.iters = 5;
  std::vector<double> on, off;
  size_t events = 0;
  for (auto _ : state) {
    for (bool trace : {true, false}) {
      opt.trace = trace;
      auto out = backend.Run(plan, opt);
      if (!out.ok()) {
        state.SkipWithError(out.status().message().c_str());
        return;
      }
      if (trace) events = out->events.size();
      for (int64_t ns : out->iteration_ns) (trace ? on : off).push_back(double(ns));
    }
  }
  auto median = [](const std::vector<double>& v) { return braid::Median(v).value_or(0.0); };
  state.counters["on_us"] = median(on) / 1e3;
  state.counters["off_us"] = median(off) / 1e3;
  state.counters["overhead_pct"] = (median(on) / median(off) - 1) * 100;
  state.counters["events_per_iter"] = double(events) / opt.iters;
}

// Tiny GEMMs (M=N=K=64), many steps: an iteration is mostly the executor's
// own synchronisation (deps, transport, barrier), so a per-step cost added
// there shows. Compare the figure across builds on an idle machine.
void BM_SmallStepIteration(benchmark::State& state) {
  const braid::Plan plan = MakePlan(braid::Op::kGemmRs, braid::Algorithm::kRing, 64, 2, 4);
  braid::CpuBackend backend;
  braid::RunOptions opt;
  opt.warmup = 5;
  opt.iters = 200;
  opt.trace = false;
  std::vector<double> times;
  for (auto _ : state) {
    auto out = backend.Run(plan, opt);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    for (int64_t ns : out->iteration_ns) times.push_back(double(ns));
  }
  state.counters["median_us"] = braid::Median(times).value_or(0.0) / 1e3;
  state.counters["steps_per_iter"] = double(plan.ranks[0].steps.size() * plan.ranks.size());
}

// Keeps the median of each benchmark's repetitions, and the tracing
// benchmark's counters, for the summary.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        medians_[r.run_name.function_name] = r.GetAdjustedRealTime();
      }
      if (r.run_name.function_name == "BM_SmallStepIteration" && r.run_type == Run::RT_Iteration) {
        small_step_us_ = r.counters.at("median_us").value;
        small_steps_ = r.counters.at("steps_per_iter").value;
      }
      if (r.run_name.function_name == "BM_TracingOverhead" && r.run_type == Run::RT_Iteration) {
        tracing_.push_back({r.run_name.args, r.counters.at("on_us").value, r.counters.at("off_us").value,
                            r.counters.at("overhead_pct").value, r.counters.at("events_per_iter").value});
      }
    }
  }
  double Median(const std::string& name) const {
    auto it = medians_.find(name);
    return it == medians_.end() ? 0 : it->second;
  }
  struct Tracing {
    std::string size;
    double on_us, off_us, pct, events;
  };
  const std::vector<Tracing>& tracing() const { return tracing_; }
  double small_step_us() const { return small_step_us_; }
  double small_steps() const { return small_steps_; }

 private:
  std::map<std::string, double> medians_;
  std::vector<Tracing> tracing_;
  double small_step_us_ = 0, small_steps_ = 0;
};

}  // namespace

BENCHMARK(BM_DirectSgemm)->UseManualTime()->Unit(benchmark::kMillisecond)->Repetitions(5)->Iterations(3);
BENCHMARK(BM_ExecutorSerialOneRank)->UseManualTime()->Unit(benchmark::kMillisecond)->Repetitions(5)->Iterations(1);
BENCHMARK(BM_TracingOverhead)->Arg(512)->Arg(1024)->Iterations(15)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SmallStepIteration)->Iterations(10)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--size=", 7) == 0) g_size = std::atoll(argv[i] + 7);
  }
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double direct = reporter.Median("BM_DirectSgemm");
  const double exec = reporter.Median("BM_ExecutorSerialOneRank");
  std::printf("\nM=N=K=%lld, medians of repetitions\n", static_cast<long long>(g_size));
  if (direct > 0 && exec > 0) {
    std::printf("executor overhead (1-rank serial plan vs direct sgemm): %+.2f%%\n", (exec / direct - 1) * 100);
  }
  for (const auto& t : reporter.tracing()) {
    std::printf(
        "tracing overhead (ring gemm_rs P=2 c=4, M=N=K=%s, %.0f events/iteration): %.0f us on, %.0f us off, %+.2f%%\n",
        t.size.c_str(), t.events, t.on_us, t.off_us, t.pct);
  }
  if (reporter.small_step_us() > 0) {
    std::printf("small-step iteration (ring gemm_rs P=2 c=4, M=N=K=64, %.0f steps): median %.1f us\n",
                reporter.small_steps(), reporter.small_step_us());
  }
  benchmark::Shutdown();
  return 0;
}
