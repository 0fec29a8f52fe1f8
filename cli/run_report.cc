#include "run_report.h"

#include <cstdio>
#include <sstream>

namespace braid::cli {

namespace {

nlohmann::json MetricsJson(const MetricSummary& s) {
  nlohmann::json j = nlohmann::json::object();
  for (Metric m : kAllMetrics) j[std::string(MetricName(m))] = {{"p50", s[m].p50}, {"p99", s[m].p99}};
  return j;
}

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// The HTA figures an importer stored for `rank`, or null.
nlohmann::json HtaOf(const RunRecord& r, int rank) {
  const auto it = r.notes.find("hta");
  if (it == r.notes.end() || !it->is_array()) return nullptr;
  for (const auto& h : *it) {
    if (h.value("rank", -1) == rank) {
      nlohmann::json out = h;
      out.erase("rank");
      return out;
    }
  }
  return nullptr;
}

std::string Describe(const RunRecord& r) {
  if (auto it = r.notes.find("layer"); it != r.notes.end() && it->is_object()) {
    const size_t ops = it->value("ops", nlohmann::json::array()).size();
    return it->value("describe", std::string("layer")) + " (" + std::to_string(ops) + " ops)";
  }
  if (r.has_workload) return r.workload.Describe();
  return "imported trace, " + std::to_string(r.workload.tp) + " rank(s)";
}

}  // namespace

std::string Pad(const std::string& text, size_t width) {
  size_t cols = 0;
  for (unsigned char ch : text) cols += (ch & 0xC0) != 0x80;
  return text + std::string(width > cols ? width - cols : 0, ' ');
}

std::string FormatDuration(double ns) {
  if (ns < 1e3) return Fmt("%.0f ns", ns);
  if (ns < 1e6) return Fmt("%.3g µs", ns / 1e3);
  if (ns < 1e9) return Fmt("%.3g ms", ns / 1e6);
  return Fmt("%.3g s", ns / 1e9);
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
    if (auto it = r.notes.find("layer"); it != r.notes.end() && it->is_object()) {
      for (const char* key : {"model", "seq", "batch", "phase", "sequence_parallel", "ops"}) {
        if (it->contains(key)) j["workload"][key] = (*it)[key];
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
  for (const char* key : {"compute_dtype", "notes", "link_emulation", "files"}) {
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
  j["ranks"] = nlohmann::json::array();
  for (int rank = 0; rank < int(r.figures.metrics.per_rank.size()); ++rank) {
    if (!r.figures.metrics.present[size_t(rank)]) continue;
    nlohmann::json rj = {{"rank", rank}, {"metrics", MetricsJson(r.figures.metrics.per_rank[size_t(rank)])}};
    if (nlohmann::json h = HtaOf(r, rank); !h.is_null()) rj["hta"] = h;
    j["ranks"].push_back(std::move(rj));
  }
  j["verify"] = r.notes.value("verify", nlohmann::json(nullptr));
  return j;
}

std::string RunTable(const RunRecord& r) {
  std::ostringstream os;
  if (r.run_id >= 0) os << "run       " << r.run_id << " (" << r.source << ")\n";
  os << "workload  " << Describe(r) << "\n";
  if (!r.topology.empty()) os << "topology  " << r.topology << "\n";
  os << "backend   " << r.backend;
  if (r.notes.contains("compute_dtype")) {
    os << (r.backend == "sim" ? " (models " : " (computes ") << r.notes["compute_dtype"].get<std::string>() << ")";
  }
  os << "\n";
  if (r.config.contains("algorithm")) {
    os << "config    " << r.config["algorithm"].get<std::string>() << " chunks=" << r.config.value("chunks", 1)
       << " streams=" << r.config.value("streams", 1) << "\n";
  }
  os << "iters     " << r.iterations << " timed after " << r.warmup << " warm-up\n";
  if (r.notes.contains("link_emulation")) {
    const auto& l = r.notes["link_emulation"];
    os << "link      emulated " << l.value("gbps", 0.0) << " Gbit/s, " << l.value("latency_us", 0.0)
       << " µs per message\n";
  }
  if (r.notes.contains("notes")) {
    for (const auto& n : r.notes["notes"]) os << "note      " << n.get<std::string>() << "\n";
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
    const nlohmann::json h = HtaOf(r, rank);
    if (h.is_null()) continue;
    if (!hta_header) os << "\nHTA (whole trace)  overlap %   idle %    compute %\n";
    hta_header = true;
    os << Pad("rank " + std::to_string(rank), 19) << Pad(Fmt("%.2f", h.value("overlap_pct", 0.0)), 12)
       << Pad(Fmt("%.2f", h.value("idle_pct", 0.0)), 10) << Fmt("%.2f", h.value("compute_pct", 0.0)) << "\n";
  }
  const nlohmann::json v = r.notes.value("verify", nlohmann::json(nullptr));
  if (v.is_object()) {
    const bool ok = v.value("ok", false);
    os << "\nverify    " << (ok ? "ok" : "FAILED") << " (max relative error "
       << Fmt("%.3g", v.value("max_rel_error", 0.0))
       << (ok ? "" : ", rank " + std::to_string(v.value("worst_rank", -1))) << ")\n";
  }
  return os.str();
}

}  // namespace braid::cli
