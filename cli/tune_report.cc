#include "tune_report.h"

#include <cstdio>
#include <sstream>

#include "braid/run_record.h"
#include "run_report.h"

namespace braid::cli {
namespace {

std::string Times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

nlohmann::json TuneJson(const TuneSummary& s, const PresetsWritten& written) {
  nlohmann::json results = nlohmann::json::array();
  for (const TuneResult& r : s.results) {
    nlohmann::json j = {
        {"op", r.op},
        {"workload",
         {{"op", OpName(r.workload.op)},
          {"m", r.workload.m},
          {"n", r.workload.n},
          {"k", r.workload.k},
          {"dtype", DTypeName(r.workload.dtype)},
          {"tp", r.workload.tp}}},
        {"config", ConfigJson(r.config)},
        {"time_ns", r.time_ns},
        {"time_ci_ns", {r.ci_low_ns, r.ci_high_ns}},
        {"speedup_vs_serial", Ratio(r.serial_ns, r.time_ns)},
        {"speedup_vs_te_default", Ratio(r.te_default_ns, r.time_ns)},
        {"serial_ns", r.serial_ns},
        {"te_default", ConfigJson(r.te_default)},
        {"te_default_ns", r.te_default_ns},
        {"overlap_ratio", r.overlap_ratio},
        {"tail_ns", r.tail_ns},
        {"candidates", r.candidates},
        {"trials", r.trials},
        {"iterations", r.iterations},
        {"stopped_by", r.stopped_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.stopped_by)},
    };
    if (!r.layer.empty()) j["layer"] = r.layer;
    if (!r.te_note.empty()) j["te_default_note"] = r.te_note;
    if (!r.note.empty()) j["note"] = r.note;
    results.push_back(std::move(j));
  }
  return {{"session", s.session},
          {"trials", s.trials},
          {"measured", s.measured},
          {"replayed", s.replayed},
          {"workload", s.workload},
          {"topology", s.topology},
          {"gpu", s.gpu},
          {"backend", s.backend},
          {"strategy", s.strategy},
          {"out", written.out},
          {"presets_written", written.count},
          {"results", results}};
}

std::string TuneTable(const TuneSummary& s, const PresetsWritten& written) {
  std::ostringstream os;
  os << "tuning session " << s.session << ": " << s.workload << " on " << s.topology << ", " << s.backend
     << " backend, " << s.strategy << " — " << s.trials << " trials (" << s.measured << " measured now, " << s.replayed
     << " replayed from the store)\n\n";
  os << Pad("op", 10) << Pad("best config", 44) << Pad("time", 11) << Pad("vs serial", 11) << Pad("vs TE default", 15)
     << Pad("overlap", 9) << "tail\n";
  for (const TuneResult& r : s.results) {
    char overlap[16];
    std::snprintf(overlap, sizeof overlap, "%.2f", r.overlap_ratio);
    os << Pad(r.op, 10) << Pad(r.config.Describe(), 44) << Pad(FormatDuration(r.time_ns), 11)
       << Pad(Times(Ratio(r.serial_ns, r.time_ns)), 11) << Pad(Times(Ratio(r.te_default_ns, r.time_ns)), 15)
       << Pad(overlap, 9) << FormatDuration(r.tail_ns) << "\n";
  }
  os << "\nTE default: ";
  for (size_t i = 0; i < s.results.size(); ++i) {
    const TuneResult& r = s.results[i];
    os << (i ? "; " : "") << r.op << " " << r.te_default.Describe() << " " << FormatDuration(r.te_default_ns);
    if (!r.te_note.empty()) os << " (" << r.te_note << ")";
  }
  os << "\n";
  for (const TuneResult& r : s.results) {
    if (!r.stopped_by.empty()) os << r.op << ": the " << r.stopped_by << " budget ended its search early\n";
  }
  for (const TuneResult& r : s.results) {
    if (!r.note.empty()) os << r.op << ": " << r.note << "\n";
  }
  if (s.backend == "sim") os << "figures are simulated (sim backend)\n";
  os << "presets: " << written.count << " written to " << written.out << "\n";
  return os.str();
}

}  // namespace braid::cli
