#include "braid/sim_error_band.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "braid/sim_calibration.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid::sim {

namespace {

bool MovesBytes(StepKind k) { return k == StepKind::kSend || k == StepKind::kRecv || k == StepKind::kCollective; }

// The union of a rank's transfer spans, sorted and merged, so that whether a
// GEMM ran beside one is a binary search.
std::vector<std::pair<double, double>> MergedSpans(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

// Whether [start, end) meets any merged span with room (not only touching).
bool Overlaps(const std::vector<std::pair<double, double>>& merged, double start, double end) {
  auto it = std::upper_bound(merged.begin(), merged.end(), std::pair{start, 1e300});
  if (it != merged.begin() && std::prev(it)->second > start) return true;
  return it != merged.end() && it->first < end;
}

double RelativeError(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

}  // namespace

RunErrorBand ErrorBandOfRun(const Plan& plan, const GpuSpec& gpu, const Topology& topo, bool loopback,
                            const std::function<std::pair<double, double>(int rank, int step)>& span) {
  const GpuErrorBand& g = gpu.error_band;
  if (loopback) return {g.loopback, g.loopback_assumed};
  double weighted = 0, total = 0;
  bool assumed = false;
  for (int r = 0; r < plan.tp(); ++r) {
    const std::vector<Step>& steps = plan.ranks[size_t(r)].steps;
    std::vector<std::pair<double, double>> moving;
    for (const Step& s : steps) {
      if (MovesBytes(s.kind)) moving.push_back(span(r, s.id));
    }
    const std::vector<std::pair<double, double>> merged = MergedSpans(std::move(moving));
    for (const Step& s : steps) {
      const auto [start, end] = span(r, s.id);
      const double t = end - start;
      if (!(t > 0)) continue;  // an empty step weighs nothing
      double band = g.gemm;
      bool band_assumed = g.gemm_assumed;
      if (MovesBytes(s.kind)) {
        band = topo.error_band.For(s.bytes);
        band_assumed = topo.error_band.AssumedFor(s.bytes);
      } else if (s.kind == StepKind::kFused || (s.kind == StepKind::kGemm && Overlaps(merged, start, end))) {
        band = g.gemm_held_sms;
        band_assumed = g.gemm_held_sms_assumed;
      }
      weighted += band * t;
      total += t;
      assumed = assumed || band_assumed;
    }
  }
  if (total <= 0) return {g.gemm, g.gemm_assumed};
  return {weighted / total, assumed};
}

double Percentile90(std::vector<double> abs_errors) {
  if (abs_errors.empty()) return 0;
  std::sort(abs_errors.begin(), abs_errors.end());
  const size_t rank = size_t(std::ceil(0.9 * double(abs_errors.size())));
  return abs_errors[std::max<size_t>(rank, 1) - 1];
}

DerivedGpuBand DeriveGpuErrorBand(const GpuSpec& gpu, const MeasuredBoard& board) {
  DerivedGpuBand out;
  std::vector<double> gemm, held;
  for (const MeasuredGemm& g : board.gemm) {
    gemm.push_back(RelativeError(GemmTimeNs(gpu, g.m, g.n, g.k, DType::kBf16), g.time_ns));
  }
  for (const MeasuredHeldGemm& h : board.held) {
    if (h.held_sms >= gpu.sm_count) continue;  // the reader refuses these; kept out of the model's @pre
    held.push_back(
        RelativeError(GemmBesideHeldSmsNs(gpu, h.m, h.n, h.k, DType::kBf16, h.held_sms, h.copying), h.time_ns));
  }
  out.gemm_rows = int(gemm.size());
  out.held_rows = int(held.size());
  if (!gemm.empty()) out.gemm = Percentile90(std::move(gemm));
  if (!held.empty()) out.gemm_held_sms = Percentile90(std::move(held));
  return out;
}

Result<std::vector<DerivedCollectiveBand>> DeriveCollectiveErrorBands() {
  BRAID_ASSIGN_OR_RETURN(auto points, BuiltinCalibrationPoints());
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_topology;
  for (const CollectivePoint& p : points.collective) {
    BRAID_ASSIGN_OR_RETURN(auto topo, LoadTopology(p.topology));
    BRAID_ASSIGN_OR_RETURN(auto kind, ParseCollectiveKind(p.kind));
    const double predicted = PredictCollective(topo, kind, p.bytes, p.ranks).busbw_gbps;
    // Times go as 1 / busbw: the error of the time the sim gives.
    const double err = RelativeError(p.busbw_gbs, predicted);
    auto& rows = by_topology[p.topology];
    (p.bytes < CollectiveErrorBand::kSmallBytes ? rows.second : rows.first).push_back(err);
  }
  std::vector<DerivedCollectiveBand> out;
  for (auto& [name, rows] : by_topology) {
    DerivedCollectiveBand b;
    b.topology = name;
    b.rows = int(rows.first.size());
    b.small_rows = int(rows.second.size());
    if (!rows.first.empty()) b.collective = Percentile90(std::move(rows.first));
    if (!rows.second.empty()) b.collective_small = Percentile90(std::move(rows.second));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace braid::sim
