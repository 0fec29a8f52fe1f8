#include "gemm_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

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
                    {"label", r.label.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.label)},
                    {"kernel", r.kernel},
                    {"kernels", r.kernels},
                    {"start_ns", r.start_ns},
                    {"end_ns", r.end_ns},
                    {"gemm_ns", r.gemm_ns},
                    {"comm_ns", r.comm_ns},
                    {"overlapped_ns", r.overlapped_ns},
                    {"exposed_ns", r.exposed_ns},
                    {"comm_libraries", Names(r.libraries, CommLibraryName)},
                    {"comm_patterns", Names(r.patterns, CommPatternName)},
                    {"method", OverlapMethodName(r.method)},
                    {"verdict", GemmVerdictName(r.verdict)}});
  }
  int64_t unlabelled = 0;
  for (const GemmOverlapRow& r : report.rows) unlabelled += r.label.empty() ? 1 : 0;
  return {{"run", run},
          {"gemms", rows},
          {"verdicts", verdicts},
          {"unlabelled_gemms", unlabelled},
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
  os << Pad("#", 4) << Pad("label", 22) << Pad("kernel", 40) << Pad("chunks", 8) << Pad("gemm", 11) << Pad("comm", 11)
     << Pad("overlap", 11) << Pad("exposed", 11) << Pad("method", 10) << Pad("comm seen", 44) << "verdict\n";
  for (const GemmOverlapRow& r : report.rows) {
    if (r.rank != shown_rank || r.iteration != shown_iteration) continue;
    const std::string seen =
        r.comm_ns > 0 ? Joined(r.libraries, CommLibraryName) + " " + Joined(r.patterns, CommPatternName) : "-";
    os << Pad(std::to_string(r.index), 4) << Pad(r.label.empty() ? "-" : Cut(r.label, 20), 22)
       << Pad(Short(r.kernel), 40) << Pad(std::to_string(r.kernels), 8) << Pad(FormatDuration(double(r.gemm_ns)), 11)
       << Pad(r.comm_ns > 0 ? FormatDuration(double(r.comm_ns)) : "-", 11)
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
  int64_t unlabelled = 0;
  for (const GemmOverlapRow& r : report.rows) unlabelled += r.label.empty() ? 1 : 0;
  if (unlabelled > 0) {
    os << "note: " << unlabelled << " of " << report.rows.size()
       << " GEMMs have no layer or pass label: no NVTX or record_function range around them in the trace (TE's "
          "need NVTE_NVTX_ENABLED=1 and show in Nsight Systems traces only)\n";
  }
  if (report.unassigned_comm > 0) {
    os << "note: " << report.unassigned_comm << " of " << report.comm_events
       << " communication events ran in a rank's iteration without a GEMM (not counted above)\n";
  }
  return os.str();
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
  os << "\nub_cfgs " << file << ": each key's method against the GEMMs TE's NVTX ranges name\n";
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
    os << "note: no GEMM carries a TE NVTX range (TE opens them with NVTE_NVTX_ENABLED=1; they show in Nsight "
          "Systems traces, not in Kineto's): nothing to check the keys against\n";
  }
  return os.str();
}

}  // namespace braid::cli
