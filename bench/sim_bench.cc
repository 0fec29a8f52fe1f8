// sim backend throughput: plan evaluations per second on one core for a TP8
// ring gemm_rs with 4 sub-chunks (M=N=K=8192 bf16, h100-sxm). One evaluation
// = one simulated iteration of the plan (SimBackend::Evaluate: load the plan's
// static costs, run the event loop). BM_SimRun adds what `braid run` pays
// per call: the plan check and one Event per step.
// Run: build/release/bench/braid_sim_bench
#include <benchmark/benchmark.h>

#include <cstdio>

#include "braid/gpu_files.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace {

braid::Plan RingPlan() {
  braid::Workload w{braid::Op::kGemmRs, 8192, 8192, 8192, braid::DType::kBf16, 8};
  braid::OverlapConfig c;
  c.algorithm = braid::Algorithm::kRing;
  c.chunks = 4;
  return *braid::BuildPlan(w, c);
}

braid::SimBackend Backend() { return braid::SimBackend(*braid::LoadGpu("h100-sxm"), *braid::LoadTopology("h100-sxm")); }

double g_evals_per_s = 0, g_evals_per_cpu_s = 0, g_runs_per_s = 0, g_makespan_us = 0;

void BM_SimEvaluate(benchmark::State& state) {
  const braid::Plan plan = RingPlan();
  braid::SimBackend b = Backend();
  int64_t makespan = 0;
  for (auto _ : state) {
    auto t = b.Evaluate(plan);
    if (!t.ok()) state.SkipWithError(t.status().message().c_str());
    makespan = t.ok() ? *t : 0;
    benchmark::DoNotOptimize(makespan);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["evals/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["steps"] = double(plan.total_steps());
  g_makespan_us = double(makespan) / 1e3;
}

void BM_SimRun(benchmark::State& state) {
  const braid::Plan plan = RingPlan();
  braid::SimBackend b = Backend();
  braid::RunOptions opt;
  opt.warmup = 0;
  opt.iters = 1;
  for (auto _ : state) {
    auto out = b.Run(plan, opt);
    if (!out.ok()) state.SkipWithError(out.status().message().c_str());
    benchmark::DoNotOptimize(out);
  }
  state.counters["runs/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

class FigureReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      const double per_s = r.iterations / r.real_accumulated_time;
      if (r.run_name.function_name == "BM_SimEvaluate") {
        g_evals_per_s = per_s;
        g_evals_per_cpu_s = r.iterations / r.cpu_accumulated_time;
      }
      if (r.run_name.function_name == "BM_SimRun") g_runs_per_s = per_s;
    }
  }
};

}  // namespace

BENCHMARK(BM_SimEvaluate)->MinTime(1.0);
BENCHMARK(BM_SimRun)->MinTime(1.0);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  FigureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  const braid::Plan plan = RingPlan();
  std::printf("\nsim: TP8 ring gemm_rs chunks=4, M=N=K=8192 bf16, h100-sxm (%zu steps, makespan %.1f us)\n",
              plan.total_steps(), g_makespan_us);
  std::printf("evaluations per second (one core, goal >= 20000): %.0f\n", g_evals_per_s);
  // On a shared machine the wall clock counts other processes' turns too.
  std::printf("evaluations per CPU second (this process's time only): %.0f\n", g_evals_per_cpu_s);
  std::printf("Run() calls per second (plan check + events): %.0f\n", g_runs_per_s);
  return 0;
}
