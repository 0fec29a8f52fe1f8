#include "run_report.h"

#include <cstdio>
#include <sstream>

#include "braid/backend_kind.h"

namespace braid::cli {

namespace {

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Describe(const RunRecord& r) { return DescribeStoredWorkload(r.has_workload, r.workload, r.notes); }

}  // namespace

std::string OpTable(const std::vector<LayerOpNote>& ops) {
  bool timed = false;
  for (const LayerOpNote& op : ops) timed = timed || op.figures.has_value();
  if (!timed) return "";
  std::ostringstream os;
  os << "\nop (worst rank, p50)   time        exposed     overlap  config\n";
  for (const LayerOpNote& op : ops) {
    os << Pad(op.name, 22);
    if (op.figures) {
      const OpFigures& f = *op.figures;
      os << Pad(FormatDuration(f.time_ns), 12) << Pad(f.comm_ns > 0 ? FormatDuration(f.exposed_comm_ns) : "-", 12)
         << Pad(f.comm_ns > 0 ? Fmt("%.3f", f.overlap_ratio) : "-", 9);
    } else {
      os << Pad("-", 12) << Pad("-", 12) << Pad("-", 9);
    }
    const std::string& config = op.config.empty() ? op.method : op.config;
    os << (config.empty() ? "-" : config) << "\n";
  }
  return os.str();
}

size_t DisplayColumns(const std::string& text) {
  size_t cols = 0;
  for (unsigned char ch : text) cols += (ch & 0xC0) != 0x80;  // UTF-8 continuation bytes take none
  return cols;
}

std::string Pad(const std::string& text, size_t width) {
  const size_t cols = DisplayColumns(text);
  return text + std::string(width > cols ? width - cols : 0, ' ');
}

std::string FormatDuration(double ns) {
  if (ns < 1e3) return Fmt("%.0f ns", ns);
  if (ns < 1e6) return Fmt("%.3g µs", ns / 1e3);
  if (ns < 1e9) return Fmt("%.3g ms", ns / 1e6);
  return Fmt("%.3g s", ns / 1e9);
}

std::string SignedDuration(double ns) { return ns < 0 ? "-" + FormatDuration(-ns) : FormatDuration(ns); }

std::string GapLine(const BoundGap& g) {
  const std::string side(BoundSideName(g.side));
  return Pad("gap", 15) + SignedDuration(g.gap_ns()) + "  (" + side + " bound: " + side + " busy " +
         SignedDuration(g.stretched_ns) + " over alone, idle " + SignedDuration(g.idle_ns) + "; compute at " +
         Fmt("%.2f", g.compute_slowdown) + "x, comm at " + Fmt("%.2f", g.comm_slowdown) + "x alone; rank " +
         std::to_string(g.rank) + ", iteration " + std::to_string(g.iteration) + ")\n";
}

namespace {

// The sim's expected error of the makespan (docs/simulator.md, "Error bands").
std::string ErrorBandLine(const nlohmann::json& notes) {
  const double band = notes[note::kErrorBand].get<double>();
  const bool assumed = notes.value(note::kErrorBandAssumed, false);
  return Pad("error_band", 15) + "±" + Fmt("%.1f", band * 100) + " % of the makespan (" +
         (assumed ? "partly assumed: a regime of the run has no measured rows" : "from measured rows") + ")\n";
}

}  // namespace

std::string RunTable(const RunRecord& r) {
  std::ostringstream os;
  if (r.run_id >= 0) os << "run       " << r.run_id << " (" << r.source << ")\n";
  os << "workload  " << Describe(r) << "\n";
  if (!r.topology.empty()) os << "topology  " << r.topology << "\n";
  os << "backend   " << r.backend;
  if (r.notes.contains(note::kComputeDtype)) {
    os << (IsBackend(r.backend, BackendKind::kSim) ? " (models " : " (computes ")
       << r.notes[note::kComputeDtype].get<std::string>() << ")";
  }
  os << "\n";
  const std::vector<LayerOpNote> ops = LayerOpsOf(r);
  if (r.config.contains("algorithm")) {
    // Every knob that was set (the codec decoded the JSON when the record was read).
    const Result<OverlapConfig> c = ConfigFromJson(r.config);
    os << "config    " << (c.ok() ? c->Describe() : r.config["algorithm"].get<std::string>());
    if (!ops.empty()) os << " (the run's; each GEMM's own below)";
    os << "\n";
  }
  os << "iters     " << r.iterations << " timed after " << r.warmup << " warm-up\n";
  if (r.notes.contains(note::kLinkEmulation)) {
    const auto& l = r.notes[note::kLinkEmulation];
    os << "link      emulated " << l.value("gbps", 0.0) << " Gbit/s, " << l.value("latency_us", 0.0)
       << " µs per message\n";
  }
  if (r.notes.contains(note::kNotes)) {
    for (const auto& n : r.notes[note::kNotes]) os << "note      " << n.get<std::string>() << "\n";
  }
  os << "\nworst rank     p50          p99\n";
  for (Metric m : kAllMetrics) {
    const Summary& s = r.figures.metrics.overall[m];
    std::string name(MetricName(m));
    if (m == Metric::kOverlapRatio) {
      os << Pad(name, 15) << Pad(Fmt("%.3f", s.p50), 13) << Fmt("%.3f", s.p99) << "\n";
      continue;
    }
    name.resize(name.size() - 3);  // drop "_ns"
    os << Pad(name, 15) << Pad(FormatDuration(s.p50), 13) << FormatDuration(s.p99) << "\n";
  }
  if (const std::optional<LowerBound>& lb = r.figures.lower_bound) {
    os << Pad("lower_bound", 15) << FormatDuration(lb->lower_bound_ns()) << "  (compute alone "
       << FormatDuration(lb->compute_alone_ns) << ", comm alone " << FormatDuration(lb->comm_alone_ns) << ")\n"
       << Pad("efficiency", 15) << Pad(Fmt("%.3f", r.figures.efficiency.p50), 13)
       << Fmt("%.3f", r.figures.efficiency.p99) << "\n";
  }
  if (const std::optional<BoundGap> g = BoundGapOf(r.figures)) os << GapLine(*g);
  if (r.notes.contains(note::kErrorBand)) os << ErrorBandLine(r.notes);
  os << OpTable(ops);
  os << "\nrank  makespan    compute     comm        exposed     tail        overlap  (p50)\n";
  for (int rank = 0; rank < int(r.figures.metrics.per_rank.size()); ++rank) {
    if (!r.figures.metrics.present[size_t(rank)]) continue;
    const MetricSummary& s = r.figures.metrics.per_rank[size_t(rank)];
    os << Pad(std::to_string(rank), 6);
    for (Metric m : {Metric::kMakespan, Metric::kCompute, Metric::kComm, Metric::kExposedComm, Metric::kTail}) {
      os << Pad(FormatDuration(s[m].p50), 12);
    }
    os << Fmt("%.3f", s[Metric::kOverlapRatio].p50) << "\n";
  }
  bool hta_header = false;
  for (int rank = 0; rank < int(r.figures.metrics.per_rank.size()); ++rank) {
    const nlohmann::json h = HtaNote(r.notes, rank);
    if (h.is_null()) continue;
    if (!hta_header) os << "\nHTA (whole trace)  overlap %   idle %    compute %\n";
    hta_header = true;
    os << Pad("rank " + std::to_string(rank), 19) << Pad(Fmt("%.2f", h.value("overlap_pct", 0.0)), 12)
       << Pad(Fmt("%.2f", h.value("idle_pct", 0.0)), 10) << Fmt("%.2f", h.value("compute_pct", 0.0)) << "\n";
  }
  const nlohmann::json v = r.notes.value(note::kVerify, nlohmann::json(nullptr));
  if (v.is_object()) {
    const bool ok = v.value("ok", false);
    os << "\nverify    " << (ok ? "ok" : "FAILED") << " (max relative error "
       << Fmt("%.3g", v.value("max_rel_error", 0.0))
       << (ok ? "" : ", rank " + std::to_string(v.value("worst_rank", -1))) << ")\n";
  }
  return os.str();
}

}  // namespace braid::cli
