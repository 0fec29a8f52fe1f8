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

nlohmann::json WorkloadJson(const Workload& w) {
  return {{"op", OpName(w.op)}, {"m", w.m}, {"n", w.n}, {"k", w.k}, {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}};
}

nlohmann::json ConfigJson(const OverlapConfig& c) {
  return {{"algorithm", AlgorithmName(c.algorithm)},
          {"chunks", c.chunks},
          {"splits", c.splits},
          {"streams", c.comm_lanes},
          {"comm_sms", c.comm_sms},
          {"comm_engine", CommEngineName(c.comm_engine)},
          {"comm_priority", c.comm_high_priority ? "high" : "normal"}};
}

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Left-justifies to `width` display columns; "µ" is two bytes but one column.
std::string Pad(const std::string& text, size_t width) {
  size_t cols = 0;
  for (unsigned char ch : text) cols += (ch & 0xC0) != 0x80;
  return text + std::string(width > cols ? width - cols : 0, ' ');
}

}  // namespace

std::string FormatDuration(double ns) {
  if (ns < 1e3) return Fmt("%.0f ns", ns);
  if (ns < 1e6) return Fmt("%.3g µs", ns / 1e3);
  if (ns < 1e9) return Fmt("%.3g ms", ns / 1e6);
  return Fmt("%.3g s", ns / 1e9);
}

nlohmann::json RunJson(const RunRecord& r) {
  nlohmann::json j;
  j["run"] = r.run_id >= 0 ? nlohmann::json(r.run_id) : nlohmann::json(nullptr);
  j["workload"] = WorkloadJson(r.plan->workload);
  j["topology"] = r.topology;
  j["config"] = ConfigJson(r.plan->config);
  j["backend"] = r.backend;
  j["iterations"] = r.options.iters;
  j["warmup"] = r.options.warmup;
  j["compute_dtype"] = r.output->compute_dtype;
  j["notes"] = r.output->notes;
  if (r.options.link_gbps > 0) {
    j["link_emulation"] = {{"gbps", r.options.link_gbps}, {"latency_us", r.options.link_latency_us}};
  }
  j["metrics"] = MetricsJson(r.metrics.overall);
  j["ranks"] = nlohmann::json::array();
  for (int rank = 0; rank < int(r.metrics.per_rank.size()); ++rank) {
    j["ranks"].push_back({{"rank", rank}, {"metrics", MetricsJson(r.metrics.per_rank[size_t(rank)])}});
  }
  const VerifyResult& v = r.output->verify;
  j["verify"] = v.ran ? nlohmann::json{{"ok", v.ok}, {"max_rel_error", v.max_rel_error}, {"worst_rank", v.worst_rank}}
                      : nlohmann::json(nullptr);
  return j;
}

std::string RunTable(const RunRecord& r) {
  std::ostringstream os;
  const Plan& p = *r.plan;
  os << "workload  " << p.workload.Describe() << "\n"
     << "topology  " << r.topology << "\n"
     << "backend   " << r.backend << " (computes " << r.output->compute_dtype << ")\n"
     << "config    " << p.config.Describe() << "\n"
     << "iters     " << r.options.iters << " timed after " << r.options.warmup << " warm-up\n";
  if (r.options.link_gbps > 0) {
    os << "link      emulated " << r.options.link_gbps << " Gbit/s, " << r.options.link_latency_us
       << " µs per message\n";
  }
  for (const std::string& n : r.output->notes) os << "note      " << n << "\n";
  os << "\nworst rank     p50          p99\n";
  for (Metric m : kAllMetrics) {
    const Summary& s = r.metrics.overall[m];
    char line[128];
    if (m == Metric::kOverlapRatio) {
      std::snprintf(line, sizeof line, "%-14s %-12.3f %.3f\n", "overlap_ratio", s.p50, s.p99);
    } else {
      std::string name(MetricName(m));
      name.resize(name.size() - 3);  // drop "_ns"
      os << Pad(name, 15) << Pad(FormatDuration(s.p50), 13) << FormatDuration(s.p99) << "\n";
      continue;
    }
    os << line;
  }
  os << "\nrank  makespan    compute     comm        exposed     tail        overlap  (p50)\n";
  for (int rank = 0; rank < int(r.metrics.per_rank.size()); ++rank) {
    const MetricSummary& s = r.metrics.per_rank[size_t(rank)];
    os << Pad(std::to_string(rank), 6);
    for (Metric m : {Metric::kMakespan, Metric::kCompute, Metric::kComm, Metric::kExposedComm, Metric::kTail}) {
      os << Pad(FormatDuration(s[m].p50), 12);
    }
    os << Fmt("%.3f", s[Metric::kOverlapRatio].p50) << "\n";
  }
  const VerifyResult& v = r.output->verify;
  if (v.ran) {
    os << "\nverify    " << (v.ok ? "ok" : "FAILED") << " (max relative error " << Fmt("%.3g", v.max_rel_error)
       << (v.ok ? "" : ", rank " + std::to_string(v.worst_rank)) << ")\n";
  }
  return os.str();
}

}  // namespace braid::cli
