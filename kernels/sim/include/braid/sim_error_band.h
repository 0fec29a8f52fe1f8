// Error bands: the relative error a simulated figure is expected to carry,
// by the regime it was computed in (docs/simulator.md, "Error bands"), so
// that a user can tell a prediction good to 5 % from one good to 50 %.
//
// The figures live in the data files ([error_band] in GPU and topology
// files); this module derives them from measured or published rows (what
// `braid calibrate --check` prints, and what a test holds the shipped files
// to) and combines them for a whole run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/plan.h"
#include "braid/sim_measured.h"
#include "braid/topology.h"

namespace braid::sim {

// A run's band: the time-weighted mean of its steps' regimes' bands (each
// step's own simulated duration as its weight), as errors that all lean one
// way would add up; or the GPU's loopback band for a loopback run, whose
// figure was measured on whole runs. Regimes: a GEMM alone (gemm), a GEMM
// while a transfer or collective of its rank runs (gemm_held_sms), a
// fused kernel (gemm_held_sms), a transfer or collective by its bytes
// (topology), any other kernel (gemm).
struct RunErrorBand {
  double relative = 0;   // e.g. 0.12: the makespan is expected within ±12 %
  bool assumed = false;  // a regime it weighs has no measured or published rows
};

// `span(rank, step)` gives the step's simulated start and end (ns).
// @pre every step of `plan` has a span with end >= start
RunErrorBand ErrorBandOfRun(const Plan& plan, const GpuSpec& gpu, const Topology& topo, bool loopback,
                            const std::function<std::pair<double, double>(int rank, int step)>& span);

// The nearest-rank 90th percentile of |error| (0.9 of the rows lie at or
// under it); 0 for no rows.
double Percentile90(std::vector<double> abs_errors);

// A GPU's GEMM bands from a board's measured rows, each row predicted from
// the GPU file as it stands (its own board rate: what a user of the file
// gets, board-to-board spread included): gemm from gemm_bf16.csv,
// gemm_held_sms from gemm_beside_held_sms.csv. Unset where the board has no
// such rows.
struct DerivedGpuBand {
  std::optional<double> gemm, gemm_held_sms;
  int gemm_rows = 0, held_rows = 0;
};
DerivedGpuBand DeriveGpuErrorBand(const GpuSpec& gpu, const MeasuredBoard& board);

// A topology's collective bands from the published nccl-tests rows of
// catalog/hardware/calibration_points.toml on it, split at
// CollectiveErrorBand::kSmallBytes. Unset where it has no such rows.
struct DerivedCollectiveBand {
  std::string topology;
  std::optional<double> collective, collective_small;
  int rows = 0, small_rows = 0;
};
Result<std::vector<DerivedCollectiveBand>> DeriveCollectiveErrorBands();

}  // namespace braid::sim
