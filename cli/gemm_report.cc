#include "gemm_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "braid/median.h"
#include "braid/te_ub_cfgs.h"
#include "run_report.h"

namespace braid::cli {

namespace {

template <typename T, typename F>
nlohmann::json Names(const std::vector<T>& v, F name) {
  nlohmann::json out = nlohmann::json::array();
  for (T x : v) out.push_back(std::string(name(x)));
  return out;
}

template <typename T, typename F>
std::string Joined(const std::vector<T>& v, F name) {
  std::string out;
  for (T x : v) out += (out.empty() ? "" : ",") + std::string(name(x));
  return out.empty() ? "-" : out;
}

// Long template names would push the figures off the line.
std::string Cut(const std::string& text, size_t most) {
  return text.size() <= most ? text : text.substr(0, most - 3) + "...";
}
std::string Short(const std::string& kernel) {
  return Cut(kernel.starts_with("void ") ? kernel.substr(5) : kernel, 38);
}

nlohmann::json OrNull(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

// What names a GEMM in the table: its range, else its op without the dims.
std::string NameOf(const GemmOverlapRow& r) {
  if (!r.label.empty()) return r.label;
  return r.op.substr(0, r.op.find(' '));
}

std::string IntList(const std::set<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

}  // namespace

nlohmann::json GemmReportJson(int64_t run, const GemmOverlapReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, int> verdicts;
  for (const GemmOverlapRow& r : report.rows) {
    ++verdicts[std::string(GemmVerdictName(r.verdict))];
    rows.push_back({{"rank", r.rank},
                    {"iteration", r.iteration},
                    {"index", r.index},
                    {"label", OrNull(r.label)},
                    {"op", OrNull(r.op)},
                    {"key", OrNull(r.key)},
                    {"key_source", OrNull(r.key_source)},
                    {"unmapped_why", OrNull(r.unmapped_why)},
                    {"kernel", r.kernel},
                    {"kernels", r.kernels},
                    {"start_ns", r.start_ns},
                    {"end_ns", r.end_ns},
                    {"gemm_ns", r.gemm_ns},
                    {"comm_ns", r.comm_ns},
                    {"overlapped_ns", r.overlapped_ns},
                    {"exposed_ns", r.exposed_ns},
                    {"span_ns", r.span_ns},
                    {"comm_libraries", Names(r.libraries, CommLibraryName)},
                    {"comm_patterns", Names(r.patterns, CommPatternName)},
                    {"method", OverlapMethodName(r.method)},
                    {"verdict", GemmVerdictName(r.verdict)}});
  }
  int64_t unlabelled = 0, unmapped = 0;
  for (const GemmOverlapRow& r : report.rows) {
    unlabelled += r.label.empty() ? 1 : 0;
    unmapped += r.key.empty() ? 1 : 0;
  }
  return {{"run", run},
          {"gemms", rows},
          {"verdicts", verdicts},
          {"unlabelled_gemms", unlabelled},
          {"unmapped_gemms", unmapped},
          {"comm_events", report.comm_events},
          {"unassigned_comm_events", report.unassigned_comm}};
}

Result<std::string> GemmReportTable(int64_t run, const GemmOverlapReport& report, std::optional<int> rank,
                                    std::optional<int> iteration) {
  if (report.rows.empty()) {
    return "run " + std::to_string(run) +
           ": no GEMM kernels (none of its compute kernels has a cuBLAS, CUTLASS, nvjet or matmul name): nothing to "
           "report by GEMM\n";
  }
  std::set<int> ranks;
  for (const GemmOverlapRow& r : report.rows) ranks.insert(r.rank);
  const int shown_rank = rank.value_or(*ranks.begin());
  if (!ranks.count(shown_rank)) {
    return Status::Invalid("--rank " + std::to_string(shown_rank) +
                           ": no GEMM on that rank (ranks with GEMMs: " + IntList(ranks) + ")");
  }
  std::set<int> iterations;
  for (const GemmOverlapRow& r : report.rows) {
    if (r.rank == shown_rank) iterations.insert(r.iteration);
  }
  const int shown_iteration = iteration.value_or(*iterations.rbegin());
  if (!iterations.count(shown_iteration)) {
    return Status::Invalid("--iteration " + std::to_string(shown_iteration) + ": no GEMM in it on rank " +
                           std::to_string(shown_rank) + " (iterations with GEMMs: " + IntList(iterations) + ")");
  }
  std::ostringstream os;
  os << "run " << run << ": GEMMs of rank " << shown_rank << ", iteration " << shown_iteration << " (" << ranks.size()
     << " rank(s) with GEMMs; --rank, --iteration pick another; --json has all)\n\n";
  os << Pad("#", 4) << Pad("key", 12) << Pad("label / op", 22) << Pad("kernel", 40) << Pad("chunks", 8)
     << Pad("gemm", 11) << Pad("comm", 11) << Pad("overlap", 11) << Pad("exposed", 11) << Pad("method", 10)
     << Pad("comm seen", 44) << "verdict\n";
  for (const GemmOverlapRow& r : report.rows) {
    if (r.rank != shown_rank || r.iteration != shown_iteration) continue;
    const std::string seen =
        r.comm_ns > 0 ? Joined(r.libraries, CommLibraryName) + " " + Joined(r.patterns, CommPatternName) : "-";
    const std::string name = NameOf(r);
    os << Pad(std::to_string(r.index), 4) << Pad(r.key.empty() ? "-" : r.key, 12)
       << Pad(name.empty() ? "-" : Cut(name, 20), 22) << Pad(Short(r.kernel), 40) << Pad(std::to_string(r.kernels), 8)
       << Pad(FormatDuration(double(r.gemm_ns)), 11) << Pad(r.comm_ns > 0 ? FormatDuration(double(r.comm_ns)) : "-", 11)
       << Pad(r.comm_ns > 0 ? FormatDuration(double(r.overlapped_ns)) : "-", 11)
       << Pad(r.comm_ns > 0 ? FormatDuration(double(r.exposed_ns)) : "-", 11)
       << Pad(std::string(OverlapMethodName(r.method)), 10) << Pad(Cut(seen, 42), 44) << GemmVerdictName(r.verdict)
       << "\n";
  }
  std::map<GemmVerdict, int> counts;
  for (const GemmOverlapRow& r : report.rows) ++counts[r.verdict];
  os << "\nverdicts, every rank and iteration:";
  for (const auto& [v, n] : counts) os << " " << GemmVerdictName(v) << " " << n;
  os << "\n";
  // The GEMMs of the table without a key, grouped by why.
  std::map<std::string, std::vector<int>> unmapped;  // why -> the GEMMs' indexes
  for (const GemmOverlapRow& r : report.rows) {
    if (r.rank != shown_rank || r.iteration != shown_iteration || !r.key.empty()) continue;
    unmapped[r.unmapped_why.empty() ? "no layer or pass names it" : r.unmapped_why].push_back(r.index);
  }
  constexpr size_t kListed = 12;  // a model's hundreds of GEMMs would fill the screen
  for (const auto& [why, which] : unmapped) {
    std::string list;
    for (size_t i = 0; i < std::min(which.size(), kListed); ++i) list += (i ? ", #" : "#") + std::to_string(which[i]);
    if (which.size() > kListed) list += " and " + std::to_string(which.size() - kListed) + " more";
    os << "unmapped " << list << ": " << why << "\n";
  }
  if (report.unassigned_comm > 0) {
    os << "note: " << report.unassigned_comm << " of " << report.comm_events
       << " communication events ran in a rank's iteration without a GEMM (not counted above)\n";
  }
  return os.str();
}

Status CheckUbCfgsHasTpGroup(const std::string& path, int tp, int ranks) {
  if (tp >= 2) return Status::Ok();
  return Status::Invalid("--ub-cfgs " + path + " configures TP overlap, but the trace's TP size is " +
                         std::to_string(tp) + " (" + std::to_string(ranks) +
                         " rank(s)): no TP group for it to overlap over");
}

Result<std::vector<UbKeyExpectation>> UbKeyExpectationsOf(const std::string& path) {
  BRAID_ASSIGN_OR_RETURN(auto file, LoadTeUbCfgsFile(path));
  std::vector<UbKeyExpectation> out;
  for (const TeKey& key : TeKeys()) {
    const TeGivenOptions* given = file.Find(key.name);
    UbKeyExpectation c;
    c.key = std::string(key.name);
    c.from_file = given != nullptr && given->method.has_value();
    c.method = std::string(TeMethodName(c.from_file ? *given->method : TeDefaultMethod(key)));
    if (given != nullptr && given->num_splits) c.num_splits = *given->num_splits;
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json TeChecksJson(const std::vector<TeKeyCheck>& checks) {
  nlohmann::json out = nlohmann::json::array();
  for (const TeKeyCheck& c : checks) {
    out.push_back({{"key", c.config.key},
                   {"method", c.config.method},
                   {"from_file", c.config.from_file},
                   {"gemms", c.gemms},
                   {"methods_seen", c.methods},
                   {"verdicts", c.verdicts},
                   {"finding", TeKeyFindingName(c.finding)},
                   {"note", c.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.note)}});
  }
  return out;
}

std::string TeChecksTable(const std::string& file, const std::vector<TeKeyCheck>& checks) {
  std::ostringstream os;
  os << "\nub_cfgs " << file << ": each key's method against the trace's GEMMs of that key\n";
  os << Pad("key", 13) << Pad("method", 15) << Pad("from", 9) << Pad("GEMMs", 7) << Pad("seen", 24) << "finding\n";
  bool any = false;
  for (const TeKeyCheck& c : checks) {
    std::string seen;
    for (const auto& [m, n] : c.methods) seen += (seen.empty() ? "" : ", ") + m + " " + std::to_string(n);
    any = any || c.gemms > 0;
    os << Pad(c.config.key, 13) << Pad(c.config.method, 15) << Pad(c.config.from_file ? "file" : "default", 9)
       << Pad(std::to_string(c.gemms), 7) << Pad(seen.empty() ? "-" : seen, 24) << TeKeyFindingName(c.finding)
       << (c.note.empty() ? "" : " (" + c.note + ")") << "\n";
  }
  if (!any) {
    os << "note: no GEMM is mapped to a key: none carries TE's or Megatron-LM's NVTX range (NVTE_NVTX_ENABLED=1, "
          "Megatron's --nvtx-ranges; they show in Nsight Systems traces, not in Kineto's), and none was mapped by "
          "its shape (--model, --seq with a Kineto trace recorded with record_shapes=True): nothing to check the "
          "keys against\n";
  }
  return os.str();
}

namespace {

struct Measured {
  int gemms = 0;
  double gemm_ns = 0, exposed_ns = 0, span_ns = 0;
};

Measured MeasuredOf(const GemmOverlapReport& report, const std::string& key) {
  std::vector<int64_t> gemm, exposed, span;
  for (const GemmOverlapRow& r : report.rows) {
    if (r.key != key) continue;
    gemm.push_back(r.gemm_ns);
    exposed.push_back(r.exposed_ns);
    span.push_back(r.span_ns);
  }
  // No GEMM of the key: 0 each (the callers print "-" or null for it).
  return {int(gemm.size()), Median(gemm).value_or(0), Median(exposed).value_or(0), Median(span).value_or(0)};
}

}  // namespace

nlohmann::json PredictionJson(const GemmOverlapReport& report, const GemmPrediction& prediction) {
  nlohmann::json keys = nlohmann::json::array();
  for (const KeyPrediction& k : prediction.keys) {
    const Measured m = MeasuredOf(report, k.key);
    nlohmann::json measured = nullptr;
    if (m.gemms > 0) {
      measured = {{"gemms", m.gemms}, {"gemm_ns", m.gemm_ns}, {"exposed_ns", m.exposed_ns}, {"span_ns", m.span_ns}};
    }
    keys.push_back({{"key", k.key},
                    {"op", k.op},
                    {"config", k.config},
                    {"predicted",
                     {{"time_ns", k.figures.time_ns},
                      {"compute_ns", k.figures.compute_ns},
                      {"exposed_comm_ns", k.figures.exposed_comm_ns},
                      {"overlap_ratio", k.figures.overlap_ratio}}},
                    {"measured", measured}});
  }
  return {{"block", prediction.block},
          {"configured_by", prediction.configured_by},
          {"topology", prediction.topology},
          {"keys", keys},
          {"notes", prediction.notes}};
}

std::string PredictionTable(const GemmOverlapReport& report, const GemmPrediction& prediction) {
  std::ostringstream os;
  os << "\nBraid's prediction (sim, " << prediction.topology << "; " << prediction.block
     << "; configs: " << prediction.configured_by
     << ") beside the trace (median of each key's GEMMs, every rank and iteration)\n";
  os << Pad("key", 12) << Pad("GEMMs", 7) << Pad("gemm", 11) << Pad("exposed", 11) << Pad("span", 11) << "| "
     << Pad("compute", 11) << Pad("exposed", 11) << Pad("time", 11) << Pad("span/time", 10) << "config\n";
  for (const KeyPrediction& k : prediction.keys) {
    const Measured m = MeasuredOf(report, k.key);
    auto measured = [&](double v) { return m.gemms > 0 ? FormatDuration(v) : std::string("-"); };
    std::string ratio = "-";
    if (m.gemms > 0 && k.figures.time_ns > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2fx", m.span_ns / k.figures.time_ns);
      ratio = buf;
    }
    os << Pad(k.key, 12) << Pad(std::to_string(m.gemms), 7) << Pad(measured(m.gemm_ns), 11)
       << Pad(measured(m.exposed_ns), 11) << Pad(measured(m.span_ns), 11) << "| "
       << Pad(FormatDuration(k.figures.compute_ns), 11) << Pad(FormatDuration(k.figures.exposed_comm_ns), 11)
       << Pad(FormatDuration(k.figures.time_ns), 11) << Pad(ratio, 10) << k.config << "\n";
  }
  for (const std::string& n : prediction.notes) os << "note: " << n << "\n";
  return os.str();
}

}  // namespace braid::cli
