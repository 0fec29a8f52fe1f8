// A run as the JSON object of the --json contract (docs/design.md), for
// `braid run`, `braid report --run` and the Python module alike.
#include "braid/run_json.h"

namespace braid {

namespace {

nlohmann::json MetricsJson(const MetricSummary& s) {
  nlohmann::json j = nlohmann::json::object();
  for (Metric m : kAllMetrics) j[std::string(MetricName(m))] = {{"p50", s[m].p50}, {"p99", s[m].p99}};
  return j;
}

}  // namespace

nlohmann::json BoundGapJson(const BoundGap& g) {
  return {{"bound", BoundSideName(g.side)},  {"iteration", g.iteration},     {"rank", g.rank},
          {"makespan_ns", g.makespan_ns},    {"lower_bound_ns", g.bound_ns}, {"gap_ns", g.gap_ns()},
          {"stretched_ns", g.stretched_ns},  {"idle_ns", g.idle_ns},         {"compute_slowdown", g.compute_slowdown},
          {"comm_slowdown", g.comm_slowdown}};
}

nlohmann::json RunJson(const RunRecord& r) {
  nlohmann::json j;
  j["run"] = r.run_id >= 0 ? nlohmann::json(r.run_id) : nlohmann::json(nullptr);
  j["source"] = r.source;
  if (r.has_workload) {
    const Workload& w = r.workload;
    j["workload"] = {{"op", OpName(w.op)},          {"m", w.m},  {"n", w.n}, {"k", w.k},
                     {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}};
    // Layer runs: op/m/n/k are the first GEMM op's; the layer's keys join them.
    if (const nlohmann::json* layer = LayerNote(r.notes)) {
      for (const char* key : {"model", "seq", "batch", "phase", "sequence_parallel", "ulysses", "ops"}) {
        if (layer->contains(key)) j["workload"][key] = (*layer)[key];
      }
    }
  } else {
    j["workload"] = nullptr;
  }
  // null where the backend used none (a cpu run in one process).
  j["topology"] = r.topology.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.topology);
  j["config"] = r.config;
  j["backend"] = r.backend;
  j["iterations"] = r.iterations;
  j["warmup"] = r.warmup;
  for (const char* key : {note::kComputeDtype, note::kNotes, note::kLinkEmulation, note::kFiles, note::kErrorBand,
                          note::kErrorBandAssumed}) {
    if (r.notes.contains(key)) j[key] = r.notes[key];
  }
  j["metrics"] = MetricsJson(r.figures.metrics.overall);
  if (const std::optional<LowerBound>& lb = r.figures.lower_bound) {
    const double bound = lb->lower_bound_ns();
    j["metrics"]["lower_bound_ns"] = {{"p50", bound}, {"p99", bound}};
    j["metrics"]["efficiency"] = {{"p50", r.figures.efficiency.p50}, {"p99", r.figures.efficiency.p99}};
    j["lower_bound"] = {
        {"compute_alone_ns", lb->compute_alone_ns}, {"comm_alone_ns", lb->comm_alone_ns}, {"lower_bound_ns", bound}};
  }
  // null where there is no lower bound (imported traces).
  const std::optional<BoundGap> gap = BoundGapOf(r.figures);
  j["gap"] = gap ? BoundGapJson(*gap) : nlohmann::json(nullptr);
  j["ranks"] = nlohmann::json::array();
  for (int rank = 0; rank < int(r.figures.metrics.per_rank.size()); ++rank) {
    if (!r.figures.metrics.present[size_t(rank)]) continue;
    nlohmann::json rj = {{"rank", rank}, {"metrics", MetricsJson(r.figures.metrics.per_rank[size_t(rank)])}};
    if (nlohmann::json h = HtaNote(r.notes, rank); !h.is_null()) rj["hta"] = h;
    j["ranks"].push_back(std::move(rj));
  }
  j["verify"] = r.notes.value(note::kVerify, nlohmann::json(nullptr));
  return j;
}

}  // namespace braid
