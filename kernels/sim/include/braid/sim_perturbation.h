// A perturbed, noisy sim target: the sim backend on hardware figures that
// are off by a few tens of percent from the shipped files, with measurement
// noise. It stands in for real hardware when measuring tuner quality: the
// tuner's guide (the plain sim model) does not know the perturbation, and
// every measurement is noisy, while TrueTimeNs gives the noise-free
// perturbed time of any plan to judge how close a strategy got.
//
// Portable: RandomPerturbation and the noise use std::mt19937_64 (whose
// output the standard fixes) with their own mapping to uniform and normal
// draws, not the <random> distributions (whose output differs between
// standard libraries). The normal draws go through std::log / std::cos /
// std::sqrt, so two C libraries may differ in the last bit of a factor,
// which moves a rounded iteration time by at most 1 ns.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "braid/backend.h"
#include "braid/gpu_files.h"
#include "braid/sim_backend.h"
#include "braid/status.h"
#include "braid/topology.h"

namespace braid {

// Multiplicative factors on the hardware model; 1 = the shipped figure.
struct SimPerturbation {
  double intra_bandwidth = 1;     // Topology::intra.bandwidth_gbs (intra-node link, e.g. NVSwitch)
  double inter_bandwidth = 1;     // Topology::inter.bandwidth_gbs (inter-node link, e.g. IB)
  double pair_bandwidth = 1;      // Topology::pair.bandwidth_gbs (NVLink-bridge pairs)
  double comm_sm_contention = 1;  // SimModelOptions::comm_sm_contention (SMs a comm kernel takes from a GEMM)
  double launch = 1;              // GpuSpec::launch_us (gap per kernel launch)
  double event_wait = 1;          // GpuSpec::event_wait_us (gap per cross-stream dependency)
};

// Each factor drawn uniformly from [1 − max_rel, 1 + max_rel], in the field
// order above, from std::mt19937_64(seed) (53-bit mantissa mapping).
// Deterministic per seed on every platform. max_rel is clamped to [0, 0.95].
SimPerturbation RandomPerturbation(uint64_t seed, double max_rel = 0.2);

// "intra_bw×1.043 inter_bw×0.912 pair_bw×1.000 contention×1.187 launch×0.955 event_wait×1.061"
std::string Describe(const SimPerturbation& p);

// Multiplies the data fields (the link bandwidths, launch_us, event_wait_us);
// comm_sm_contention is a model parameter, not data: pass it to SimBackend
// through SimModelOptions. Either pointer may be null (then its fields are
// left alone).
void ApplyPerturbation(const SimPerturbation& p, GpuSpec* gpu, Topology* topo);

// Invalid unless every factor is finite and > 0.
Status CheckPerturbation(const SimPerturbation& p);

// The sim backend on perturbed hardware with multiplicative measurement
// noise. name() is "sim".
//
// Run: runs the perturbed SimBackend, then multiplies each timed
// iteration's iteration_ns by f = 1 + noise_rel·z, z ~ Normal(0, 1) by
// Box–Muller over the noise generator, clamped to [−4, 4] (rounded to ns).
// The generator advances with every iteration of every Run, so repeated
// measurements of the same plan differ; the sequence is fixed by
// noise_seed. Events are rescaled consistently: iteration i starts where
// the noisy iteration i−1 ended, and each of its events' start and end,
// measured from the iteration start, is multiplied by that iteration's f,
// so metrics computed from events agree with iteration_ns. noise_rel = 0
// gives the noise-free perturbed times (f = 1 exactly).
class PerturbedSimBackend : public Backend {
 public:
  // gpu and topo are the unperturbed files; the perturbation is applied here.
  // @pre CheckPerturbation(perturbation).ok() and 0 <= noise_rel < 0.25
  // (MakePerturbedSimBackend checks both).
  PerturbedSimBackend(GpuSpec gpu, Topology topo, const SimPerturbation& perturbation, double noise_rel,
                      uint64_t noise_seed);

  std::string_view name() const override { return BackendKindName(BackendKind::kSim); }
  bool IterationTimesAreMakespans() const override { return true; }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;

  // The noise-free perturbed makespan of one iteration (checks the plan's
  // structure first). Draws no noise.
  Result<int64_t> TrueTimeNs(const Plan& plan);

  const SimPerturbation& perturbation() const { return perturbation_; }
  double noise_rel() const { return noise_rel_; }
  // The perturbed hardware the runs use.
  const GpuSpec& gpu() const { return sim_.gpu(); }
  const Topology& topology() const { return sim_.topology(); }

  // The next noise factor f (advances the generator); exposed for tests.
  double NextNoiseFactor();

 private:
  SimPerturbation perturbation_;
  double noise_rel_;
  std::mt19937_64 rng_;
  SimBackend sim_;
};

// Loads the topology (built-in name or .toml path) and its GPU file as
// MakeSimBackend does, then builds a PerturbedSimBackend. Invalid if a
// factor is not finite and > 0, or noise_rel is not in [0, 0.25).
Result<std::unique_ptr<PerturbedSimBackend>> MakePerturbedSim(const std::string& topology_name_or_file,
                                                              const SimPerturbation& perturbation, double noise_rel,
                                                              uint64_t noise_seed);
// The same as a plain Backend.
Result<std::unique_ptr<Backend>> MakePerturbedSimBackend(const std::string& topology_name_or_file,
                                                         const SimPerturbation& perturbation, double noise_rel,
                                                         uint64_t noise_seed);

}  // namespace braid
