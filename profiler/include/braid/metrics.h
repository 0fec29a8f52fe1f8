// Overlap metrics of docs/design.md, per rank and iteration, and their summaries:
// p50 / p99 over iterations of the worst rank (max over ranks for times, min
// for overlap_ratio), and per rank p50 / p99 over iterations.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "braid/event.h"
#include "braid/status.h"

namespace braid {

enum class Metric {
  kMakespan,      // first step start to last step end
  kCompute,       // |union of compute intervals|
  kComm,          // |union of comm intervals|
  kOverlap,       // |compute ∩ comm|
  kExposedComm,   // comm − overlap
  kTail,          // end of the last compute step to the end of the iteration
  kOverlapRatio,  // overlap / comm (0 when there is no comm)
};
inline constexpr int kMetricCount = 7;
inline constexpr std::array<Metric, kMetricCount> kAllMetrics = {
    Metric::kMakespan,    Metric::kCompute, Metric::kComm,        Metric::kOverlap,
    Metric::kExposedComm, Metric::kTail,    Metric::kOverlapRatio};

// JSON / table name: "makespan_ns", ..., "overlap_ratio".
std::string_view MetricName(Metric m);

struct MetricValues {
  std::array<double, kMetricCount> v{};
  double& operator[](Metric m) { return v[size_t(m)]; }
  double operator[](Metric m) const { return v[size_t(m)]; }
};

// Metrics of one rank in one iteration. Marker and sync events are ignored.
MetricValues RankIterationMetrics(const std::vector<const Event*>& events);

struct Summary {
  double p50 = 0;
  double p99 = 0;
};

struct MetricSummary {
  std::array<Summary, kMetricCount> s{};
  const Summary& operator[](Metric m) const { return s[size_t(m)]; }
  Summary& operator[](Metric m) { return s[size_t(m)]; }
};

struct RunMetrics {
  int iterations = 0;
  int ranks = 0;
  // [iteration][rank]
  std::vector<std::vector<MetricValues>> values;
  // Ranks that appear at all (an imported rank-3 trace has ranks 0..2
  // absent); absent ranks take no part in the worst-rank figures.
  std::vector<bool> present;
  MetricSummary overall;
  std::vector<MetricSummary> per_rank;
};

// Groups events by (iteration, rank). Ranks and iterations are taken from the
// events (0..max seen); a present rank with no events in an iteration counts
// zeros there.
RunMetrics ComputeRunMetrics(const std::vector<Event>& events);

// The same figures built as events arrive, a batch at a time (a streamed
// run's iterations), so that the run is never held whole: what is kept is
// one MetricValues per (iteration, rank). Every event of one (iteration,
// rank) must come in one batch.
class RunMetricsBuilder {
 public:
  // Internal when a batch brings events of an (iteration, rank) that an
  // earlier batch had; then nothing of the batch is kept.
  Status Add(const std::vector<Event>& events);
  // ComputeRunMetrics of every event added.
  RunMetrics Finish() const;

 private:
  // [iteration][rank]; nullopt where no event came (yet).
  std::vector<std::vector<std::optional<MetricValues>>> values_;
  int ranks_ = 0;
};

// Summaries of per-(iteration, rank) values, e.g. metric rows read back
// from the store; values[iteration][rank].
// `present` empty means every rank is present.
RunMetrics SummarizeRunMetrics(std::vector<std::vector<MetricValues>> values, std::vector<bool> present = {});

// Linear interpolation between order statistics (numpy's default).
double Percentile(std::vector<double> values, double q);

}  // namespace braid
