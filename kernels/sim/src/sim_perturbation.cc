#include "braid/sim_perturbation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <utility>
#include <vector>

#include "braid/plan_check.h"
#include "braid/topology_files.h"

namespace braid {

namespace {

// [0, 1) from the top 53 bits: exact and the same on every platform.
double Uniform01(std::mt19937_64& g) { return double(g() >> 11) * 0x1.0p-53; }

// One standard normal draw (Box–Muller, cosine branch; the sine partner is
// discarded so that every draw consumes exactly two generator outputs).
double StandardNormal(std::mt19937_64& g) {
  const double u1 = 1.0 - Uniform01(g);  // (0, 1]: log stays finite
  const double u2 = Uniform01(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

SimModelOptions ModelOptions(const SimPerturbation& p) {
  SimModelOptions o;
  o.comm_sm_contention = p.comm_sm_contention;
  return o;
}

GpuSpec Perturbed(GpuSpec gpu, const SimPerturbation& p) {
  ApplyPerturbation(p, &gpu, nullptr);
  return gpu;
}

Topology Perturbed(Topology topo, const SimPerturbation& p) {
  ApplyPerturbation(p, nullptr, &topo);
  return topo;
}

}  // namespace

SimPerturbation RandomPerturbation(uint64_t seed, double max_rel) {
  const double rel = std::isfinite(max_rel) ? std::clamp(max_rel, 0.0, 0.95) : 0.0;
  std::mt19937_64 g(seed);
  const auto draw = [&] { return (1.0 - rel) + 2.0 * rel * Uniform01(g); };
  SimPerturbation p;
  // Sequenced one by one: the draw order is part of the contract.
  p.intra_bandwidth = draw();
  p.inter_bandwidth = draw();
  p.pair_bandwidth = draw();
  p.comm_sm_contention = draw();
  p.launch = draw();
  p.event_wait = draw();
  return p;
}

std::string Describe(const SimPerturbation& p) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "intra_bw\u00d7%.3f inter_bw\u00d7%.3f pair_bw\u00d7%.3f contention\u00d7%.3f launch\u00d7%.3f "
                "event_wait\u00d7%.3f",
                p.intra_bandwidth, p.inter_bandwidth, p.pair_bandwidth, p.comm_sm_contention, p.launch, p.event_wait);
  return buf;
}

void ApplyPerturbation(const SimPerturbation& p, GpuSpec* gpu, Topology* topo) {
  if (gpu != nullptr) {
    gpu->launch_us *= p.launch;
    gpu->event_wait_us *= p.event_wait;
  }
  if (topo != nullptr) {
    topo->intra.bandwidth_gbs *= p.intra_bandwidth;
    topo->inter.bandwidth_gbs *= p.inter_bandwidth;
    topo->pair.bandwidth_gbs *= p.pair_bandwidth;
  }
}

Status CheckPerturbation(const SimPerturbation& p) {
  const std::pair<const char*, double> factors[] = {
      {"intra_bandwidth", p.intra_bandwidth},
      {"inter_bandwidth", p.inter_bandwidth},
      {"pair_bandwidth", p.pair_bandwidth},
      {"comm_sm_contention", p.comm_sm_contention},
      {"launch", p.launch},
      {"event_wait", p.event_wait},
  };
  for (const auto& [name, v] : factors) {
    if (!std::isfinite(v) || v <= 0) {
      return Status::Invalid(std::string("sim perturbation: ") + name + " must be a finite factor > 0");
    }
  }
  return Status::Ok();
}

PerturbedSimBackend::PerturbedSimBackend(GpuSpec gpu, Topology topo, const SimPerturbation& perturbation,
                                         double noise_rel, uint64_t noise_seed)
    : perturbation_(perturbation),
      noise_rel_(noise_rel),
      rng_(noise_seed),
      sim_(Perturbed(std::move(gpu), perturbation), Perturbed(std::move(topo), perturbation),
           ModelOptions(perturbation)) {}

double PerturbedSimBackend::NextNoiseFactor() {
  const double z = std::clamp(StandardNormal(rng_), -4.0, 4.0);
  return 1.0 + noise_rel_ * z;
}

Result<int64_t> PerturbedSimBackend::TrueTimeNs(const Plan& plan) {
  BRAID_RETURN_IF_ERROR(CheckPlanStructure(plan));
  return sim_.Evaluate(plan);
}

Result<RunOutput> PerturbedSimBackend::Run(const Plan& plan, const RunOptions& options) {
  // The noise applies to the whole output, so the events come back whole
  // (this backend does not stream; the caller takes them from the output).
  RunOptions whole = options;
  whole.on_iteration = nullptr;
  BRAID_ASSIGN_OR_RETURN(RunOutput o, sim_.Run(plan, whole));
  const size_t iters = o.iteration_ns.size();
  // Each iteration's factor, its start in the plain sim output (the sim
  // places iteration i at i·makespan) and its start after the noise.
  std::vector<double> factor(iters);
  std::vector<int64_t> old_start(iters), new_start(iters);
  int64_t old_at = 0, new_at = 0;
  for (size_t i = 0; i < iters; ++i) {
    factor[i] = NextNoiseFactor();
    old_start[i] = old_at;
    new_start[i] = new_at;
    old_at += o.iteration_ns[i];
    o.iteration_ns[i] = int64_t(std::llround(double(o.iteration_ns[i]) * factor[i]));
    new_at += o.iteration_ns[i];
  }
  for (Event& e : o.events) {
    if (e.iteration < 0 || size_t(e.iteration) >= iters) continue;
    const size_t i = size_t(e.iteration);
    e.start_ns = new_start[i] + int64_t(std::llround(double(e.start_ns - old_start[i]) * factor[i]));
    e.end_ns = new_start[i] + int64_t(std::llround(double(e.end_ns - old_start[i]) * factor[i]));
  }
  o.notes.push_back("perturbed sim (" + Describe(perturbation_) + "), measurement noise " +
                    std::to_string(noise_rel_ * 100.0) + " % (1 sigma)");
  return o;
}

Result<std::unique_ptr<PerturbedSimBackend>> MakePerturbedSim(const std::string& topology_name_or_file,
                                                              const SimPerturbation& perturbation, double noise_rel,
                                                              uint64_t noise_seed) {
  BRAID_RETURN_IF_ERROR(CheckPerturbation(perturbation));
  if (!std::isfinite(noise_rel) || noise_rel < 0 || noise_rel >= 0.25) {
    return Status::Invalid("perturbed sim: noise_rel must be in [0, 0.25) (4 sigma below 100 %)");
  }
  BRAID_ASSIGN_OR_RETURN(auto hw, LoadSimHardware(topology_name_or_file));
  return std::make_unique<PerturbedSimBackend>(std::move(hw.gpu), std::move(hw.topo), perturbation, noise_rel,
                                               noise_seed);
}

Result<std::unique_ptr<Backend>> MakePerturbedSimBackend(const std::string& topology_name_or_file,
                                                         const SimPerturbation& perturbation, double noise_rel,
                                                         uint64_t noise_seed) {
  BRAID_ASSIGN_OR_RETURN(auto b, MakePerturbedSim(topology_name_or_file, perturbation, noise_rel, noise_seed));
  return std::unique_ptr<Backend>(std::move(b));
}

}  // namespace braid
