// Tuner quality: how close the cheap strategies get to the exhaustive
// optimum, and at what share of its cost, on a target the guide does not
// know.
//
// The target stands in for real hardware: the sim backend with its hardware
// figures perturbed (link bandwidths, comm-SM contention, launch and
// event-wait overheads each off by up to ±20 %, seeded per workload) and
// multiplicative measurement noise (3 % by default). A trial is one config
// measured on that target.
//
// For every workload of the suite (single ops of several shapes and the TP
// GEMMs of model prefill layers; TP 2–8; NVSwitch and PCIe topologies):
//   1. exhaustive on the noisy perturbed target; the reference optimum is
//      the minimum over the whole space of the noise-free perturbed time
//      (PerturbedSimBackend::TrueTimeNs), computed separately;
//   2. halving, guided (guide: the UNPERTURBED sim model of the topology)
//      and random, each on a fresh noisy target (its own noise seed, the
//      same perturbation);
//   3. per strategy: gap = true time of its choice / optimum − 1, its
//      iterations (warm-up + timed, over all trials) as a share of
//      exhaustive's, and its trials.
//
// Criterion (the issue): guided and halving within 2 % of the optimum on
// every workload while measuring at most 20 % of exhaustive's iterations.
//
// Run: build/release/bench/braid_tuner_quality_bench [--workloads N]
//        [--noise 0.03] [--seed S] [--detail]
// --detail prints, under each row's workload, the perturbation, the eight
// truly fastest configs with their rank in the guide's order, and each
// strategy's choice.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/backend_trial_runner.h"
#include "braid/gpu_files.h"
#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/planner.h"
#include "braid/search.h"
#include "braid/search_space.h"
#include "braid/sim_guide.h"
#include "braid/sim_perturbation.h"
#include "braid/topology_files.h"
#include "braid/tune.h"

namespace {

using namespace braid;

struct Case {
  std::string name;  // "ag_gemm 8192x8192x8192" or "llama3-70b s8192 fc1"
  Workload w;
  std::string topology;
  bool pcie = false;
};

// The index of `config` in the space it was chosen from.
size_t IndexIn(const std::vector<OverlapConfig>& space, const OverlapConfig& config) {
  for (size_t i = 0; i < space.size(); ++i) {
    if (space[i].Describe() == config.Describe()) return i;
  }
  return 0;
}

bool IsPcie(const std::string& topo) { return topo.find("pcie") != std::string::npos; }

Case Single(Op op, int64_t m, int64_t n, int64_t k, int tp, const std::string& topo) {
  Case c;
  c.w = Workload{op, m, n, k, DType::kBf16, tp};
  c.name = std::string(OpName(op)) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  c.topology = topo;
  c.pcie = IsPcie(topo);
  return c;
}

// The TP GEMMs (kTpGemm) of one prefill layer; `only` picks some by name
// (empty: all).
Status AddModel(std::vector<Case>* out, const std::string& model, int64_t seq, int tp, const std::string& topo,
                const std::vector<std::string>& only) {
  Result<ModelSpec> spec = LoadModel(model);
  if (!spec.ok()) return spec.status();
  Result<LayerWorkload> lw = MakeLayerWorkload(*spec, seq, 1, Phase::kPrefill, tp, DType::kBf16);
  if (!lw.ok()) return lw.status();
  for (const LayerOp& op : lw->ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), op.name) == only.end()) continue;
    Case c;
    c.w = op.gemm;
    c.name = model + " s" + std::to_string(seq) + " " + op.name;
    c.topology = topo;
    c.pcie = IsPcie(topo);
    out->push_back(c);
  }
  return Status::Ok();
}

Result<std::vector<Case>> Suite() {
  std::vector<Case> s;
  // Single ops: several shapes, every op, TP 2–8, NVSwitch and PCIe.
  s.push_back(Single(Op::kAgGemm, 8192, 8192, 8192, 8, "h100-sxm"));
  s.push_back(Single(Op::kGemmRs, 8192, 8192, 28672, 8, "h100-sxm"));
  s.push_back(Single(Op::kGemmAr, 4096, 8192, 8192, 8, "h200-sxm"));
  s.push_back(Single(Op::kAgGemm, 4096, 28672, 8192, 4, "a100-sxm"));
  s.push_back(Single(Op::kGemmRs, 16384, 8192, 8192, 4, "a800-sxm"));
  s.push_back(Single(Op::kGemmAr, 2048, 4096, 14336, 2, "h100-sxm"));
  s.push_back(Single(Op::kAgGemm, 8192, 4096, 4096, 4, "rtx4090-pcie"));
  s.push_back(Single(Op::kGemmRs, 8192, 4096, 14336, 4, "rtx4090-pcie"));
  s.push_back(Single(Op::kGemmAr, 4096, 4096, 4096, 2, "l40s-pcie"));
  s.push_back(Single(Op::kAgGemm, 4096, 14336, 4096, 8, "l40s-pcie"));
  s.push_back(Single(Op::kGemmRs, 4096, 8192, 8192, 2, "a100-pcie-nvlink-pairs"));
  // Model prefill layers: their TP GEMMs (qkv / fc1 ag_gemm, out_proj / fc2 gemm_rs).
  BRAID_RETURN_IF_ERROR(AddModel(&s, "llama3-8b", 4096, 4, "rtx4090-pcie", {}));
  BRAID_RETURN_IF_ERROR(AddModel(&s, "llama3-70b", 8192, 8, "h100-sxm", {}));
  BRAID_RETURN_IF_ERROR(AddModel(&s, "gpt3-175b", 4096, 8, "a100-sxm", {"out_proj", "fc1"}));
  BRAID_RETURN_IF_ERROR(AddModel(&s, "qwen2-72b", 8192, 4, "l40s-pcie", {"qkv", "fc2"}));
  BRAID_RETURN_IF_ERROR(AddModel(&s, "llama3-70b", 4096, 2, "h200-sxm", {"out_proj", "fc1"}));
  BRAID_RETURN_IF_ERROR(AddModel(&s, "llama3-8b", 8192, 8, "l40s-pcie", {"fc2"}));
  return s;
}

struct StrategyResult {
  double gap = 0;       // true time of the choice / optimum − 1
  double iter_pct = 0;  // iterations as % of exhaustive's
  int trials = 0;
  int64_t iterations = 0;
};

struct Row {
  std::string name, topology;
  int tp = 0;
  size_t space = 0;
  std::map<Strategy, StrategyResult> r;
};

const Strategy kStrategies[] = {Strategy::kExhaustive, Strategy::kHalving, Strategy::kGuided, Strategy::kRandom};

uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

// --detail: where the optimum sits in the guide's ranking, and what each
// strategy chose (to see why a strategy missed).
Result<Row> RunCase(const Case& c, size_t index, uint64_t seed, double noise, bool detail) {
  Row row;
  row.name = c.name;
  row.topology = c.topology;
  row.tp = c.w.tp;
  BRAID_RETURN_IF_ERROR(c.w.Validate());
  Result<Topology> topo = LoadTopology(c.topology);
  if (!topo.ok()) return topo.status();
  Result<GpuSpec> gpu = LoadGpu(topo->gpu);
  if (!gpu.ok()) return gpu.status();
  Result<BackendKnobs> knobs = KnobsOfBackend("sim");
  if (!knobs.ok()) return knobs.status();
  const std::vector<OverlapConfig> space = BuildSearchSpace(c.w, *knobs, gpu->sm_count);
  row.space = space.size();
  if (space.empty()) return Status::Invalid("empty search space for " + c.w.Describe());

  const SimPerturbation pert = RandomPerturbation(Mix(seed, index), 0.2);

  // The plans, built once; the reference optimum from the noise-free
  // perturbed times.
  std::vector<Plan> plans;
  plans.reserve(space.size());
  for (const OverlapConfig& cfg : space) {
    Result<Plan> p = BuildPlan(c.w, cfg);
    if (!p.ok()) return p.status();
    plans.push_back(std::move(*p));
  }
  Result<std::unique_ptr<PerturbedSimBackend>> truth_backend = MakePerturbedSim(c.topology, pert, 0.0, 0);
  if (!truth_backend.ok()) return truth_backend.status();
  std::vector<int64_t> truth(space.size());
  for (size_t i = 0; i < space.size(); ++i) {
    Result<int64_t> t = (*truth_backend)->TrueTimeNs(plans[i]);
    if (!t.ok()) return t.status();
    truth[i] = *t;
  }
  const double optimum = double(*std::min_element(truth.begin(), truth.end()));

  Result<Guide> guide = MakeSimGuide(c.w, c.topology);  // unperturbed
  if (!guide.ok()) return guide.status();

  if (detail) {
    std::vector<std::pair<double, size_t>> predicted;
    for (size_t i = 0; i < space.size(); ++i) {
      Result<double> t = (*guide)(space[i]);
      if (!t.ok()) return t.status();
      predicted.emplace_back(*t, i);
    }
    std::sort(predicted.begin(), predicted.end());
    std::vector<size_t> guide_rank(space.size());
    for (size_t r = 0; r < predicted.size(); ++r) guide_rank[predicted[r].second] = r;
    std::vector<size_t> by_truth(space.size());
    for (size_t i = 0; i < space.size(); ++i) by_truth[i] = i;
    std::sort(by_truth.begin(), by_truth.end(), [&](size_t a, size_t b) { return truth[a] < truth[b]; });
    int near = 0;
    for (int64_t t : truth) near += double(t) <= optimum * 1.02;
    std::printf("    %s  (%d candidates within 2%% of the optimum)\n", Describe(pert).c_str(), near);
    // Per algorithm: the guide's best of the family and the truly best.
    for (int a = 0; a <= int(Algorithm::kFused); ++a) {
      size_t guide_best = space.size(), true_best = space.size();
      for (const auto& [t, i] : predicted) {
        if (int(space[i].algorithm) == a && guide_best == space.size()) guide_best = i;
      }
      for (size_t i : by_truth) {
        if (int(space[i].algorithm) == a && true_best == space.size()) true_best = i;
      }
      if (guide_best == space.size()) continue;
      std::printf("    %-10s guide's best: rank %3zu +%.2f%% %s | true best: rank %3zu +%.2f%% %s\n",
                  std::string(AlgorithmName(Algorithm(a))).c_str(), guide_rank[guide_best],
                  100 * (double(truth[guide_best]) / optimum - 1), space[guide_best].Describe().c_str(),
                  guide_rank[true_best], 100 * (double(truth[true_best]) / optimum - 1),
                  space[true_best].Describe().c_str());
    }
    for (size_t r = 0; r < std::min<size_t>(8, by_truth.size()); ++r) {
      const size_t i = by_truth[r];
      std::printf("    true #%zu  +%.2f%%  guide rank %3zu  %s\n", r, 100 * (double(truth[i]) / optimum - 1),
                  guide_rank[i], space[i].Describe().c_str());
    }
  }

  int64_t exhaustive_iterations = 0;
  for (Strategy s : kStrategies) {
    // A fresh noisy target per strategy: same perturbation, own noise seed.
    Result<std::unique_ptr<PerturbedSimBackend>> target =
        MakePerturbedSim(c.topology, pert, noise, Mix(Mix(seed, index), 100 + uint64_t(s)));
    if (!target.ok()) return target.status();
    BackendTrialRunner runner(**target, c.w);
    SearchOptions o;
    o.strategy = s;
    o.seed = Mix(seed, index) + 7;
    if (s == Strategy::kGuided) o.guide = *guide;
    // The same per-op call as `braid tune`; the criterion judges the search
    // alone, so the baselines are left out.
    Result<TuneResult> out = TuneOne(TuneTarget{c.name, c.w, ""}, space, runner, o, /*baselines=*/false);
    if (!out.ok()) return out.status();
    const size_t best = IndexIn(space, out->config);
    StrategyResult sr;
    sr.gap = double(truth[best]) / optimum - 1;
    sr.trials = out->trials;
    sr.iterations = out->iterations;
    if (s == Strategy::kExhaustive) exhaustive_iterations = out->iterations;
    if (detail) {
      std::printf("    %-10s chose +%.2f%% (measured %.0f ns, true %" PRId64 " ns) %s\n",
                  std::string(StrategyName(s)).c_str(), 100 * sr.gap, out->time_ns, truth[best],
                  space[best].Describe().c_str());
    }
    sr.iter_pct = 100.0 * double(out->iterations) / double(exhaustive_iterations);
    row.r[s] = sr;
  }
  return row;
}

void Usage() {
  std::fprintf(stderr, "usage: braid_tuner_quality_bench [--workloads N] [--noise 0.03] [--seed S] [--detail]\n");
}

}  // namespace

int main(int argc, char** argv) {
  int limit = 0;
  double noise = 0.03;
  uint64_t seed = 1;
  bool detail = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if ((a == "--workloads" || a == "--noise" || a == "--seed") && i + 1 < argc) {
      const char* v = argv[++i];
      char* end = nullptr;
      if (a == "--workloads") limit = int(std::strtol(v, &end, 10));
      if (a == "--noise") noise = std::strtod(v, &end);
      if (a == "--seed") seed = std::strtoull(v, &end, 10);
      if (end == v || *end != '\0') {
        std::fprintf(stderr, "bad value for %s: '%s'\n", argv[i - 1], v);
        return 2;
      }
    } else if (a == "--detail") {
      detail = true;
    } else if (a == "--help" || a == "-h") {
      Usage();
      return 0;
    } else {
      Usage();
      return 2;
    }
  }
  if (limit < 0 || !(noise >= 0 && noise < 0.25)) {
    std::fprintf(stderr, "--workloads must be >= 0 and --noise in [0, 0.25)\n");
    return 2;
  }

  Result<std::vector<Case>> suite = Suite();
  if (!suite.ok()) {
    std::fprintf(stderr, "suite: %s\n", suite.status().message().c_str());
    return 1;
  }
  std::vector<Case> cases = *suite;
  if (limit > 0 && size_t(limit) < cases.size()) cases.resize(size_t(limit));
  const int pcie = int(std::count_if(cases.begin(), cases.end(), [](const Case& c) { return c.pcie; }));

  std::printf("tuner quality: %zu workloads (%d on PCIe), perturbation ±20%%, noise %.1f%%, seed %" PRIu64 "\n",
              cases.size(), pcie, 100 * noise, seed);
  std::printf("gap = true time of the choice / true optimum - 1; it%% = iterations / exhaustive's\n\n");
  std::printf("%-3s %-28s %-23s %2s %5s | %7s | %7s %6s | %7s %6s | %7s %6s\n", "#", "workload", "topology", "P",
              "space", "exh gap", "halv", "it%", "guided", "it%", "random", "it%");

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Row> rows;
  for (size_t i = 0; i < cases.size(); ++i) {
    Result<Row> row = RunCase(cases[i], i, seed, noise, detail);
    if (!row.ok()) {
      std::fprintf(stderr, "%s on %s: %s\n", cases[i].name.c_str(), cases[i].topology.c_str(),
                   row.status().message().c_str());
      return 1;
    }
    const Row& r = *row;
    std::printf("%-3zu %-28s %-23s %2d %5zu | %6.2f%% | %6.2f%% %5.1f%% | %6.2f%% %5.1f%% | %6.2f%% %5.1f%%\n", i + 1,
                r.name.c_str(), r.topology.c_str(), r.tp, r.space, 100 * r.r.at(Strategy::kExhaustive).gap,
                100 * r.r.at(Strategy::kHalving).gap, r.r.at(Strategy::kHalving).iter_pct,
                100 * r.r.at(Strategy::kGuided).gap, r.r.at(Strategy::kGuided).iter_pct,
                100 * r.r.at(Strategy::kRandom).gap, r.r.at(Strategy::kRandom).iter_pct);
    std::fflush(stdout);
    rows.push_back(r);
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("\n%-10s %8s %8s %8s %8s %11s %11s\n", "strategy", "max gap", "mean gap", "max it%", "mean it%",
              "mean trials", "within 2%");
  bool pass = !rows.empty();
  for (Strategy s : kStrategies) {
    double max_gap = 0, sum_gap = 0, max_it = 0, sum_it = 0, sum_trials = 0;
    int within = 0;
    for (const Row& r : rows) {
      const StrategyResult& sr = r.r.at(s);
      max_gap = std::max(max_gap, sr.gap);
      sum_gap += sr.gap;
      max_it = std::max(max_it, sr.iter_pct);
      sum_it += sr.iter_pct;
      sum_trials += sr.trials;
      within += sr.gap <= 0.02;
      if ((s == Strategy::kHalving || s == Strategy::kGuided) && (sr.gap > 0.02 || sr.iter_pct > 20.0)) pass = false;
    }
    const double n = double(std::max<size_t>(1, rows.size()));
    std::printf("%-10s %7.2f%% %7.2f%% %7.1f%% %7.1f%% %11.1f %7d/%zu\n", std::string(StrategyName(s)).c_str(),
                100 * max_gap, 100 * sum_gap / n, max_it, sum_it / n, sum_trials / n, within, rows.size());
  }
  std::printf("\nwall time %.1f s\n", wall_s);
  std::printf(
      "%s: guided and halving within 2%% of the optimum on every workload at <= 20%% of exhaustive's "
      "iterations\n",
      pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
