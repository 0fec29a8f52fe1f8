#include "tune_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "braid/backend_kind.h"
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

std::string Fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

// "comm: busy +14 µs, idle 22 µs": the bound side's stretch and idle time.
std::string GapCell(const BoundGap& g) {
  const std::string busy = g.stretched_ns < 0 ? SignedDuration(g.stretched_ns) : "+" + FormatDuration(g.stretched_ns);
  return std::string(BoundSideName(g.side)) + ": busy " + busy + ", idle " + SignedDuration(g.idle_ns);
}

// The GEMMs a result decides: its own, and a backward pair's wgrad.
nlohmann::json GemmsJson(const TuneResult& r) {
  nlohmann::json gemms = nlohmann::json::array();
  if (!r.train_ops) {
    gemms.push_back({{"op", r.op}, {"pass", PassName(r.pass)}, {"config", ConfigJson(r.config)}});
    return gemms;
  }
  for (size_t i = 0; i < r.train_ops->ops.size(); ++i) {
    const LayerOp& op = r.train_ops->ops[i];
    gemms.push_back(
        {{"op", op.name}, {"pass", PassName(op.pass)}, {"config", ConfigJson(i == 0 ? r.config : r.wgrad_config)}});
  }
  return gemms;
}

nlohmann::json BlockJson(const BlockFigures& b) {
  auto one = [](const BlockFigures::Figures& f) {
    return nlohmann::json{{"time_ns", f.time_ns},
                          {"overlap_ratio", f.overlap_ratio},
                          {"lower_bound_ns", f.lower_bound_ns},
                          {"efficiency", Ratio(f.lower_bound_ns, f.time_ns)},
                          {"run", f.run}};
  };
  nlohmann::json j = {{"tuned", one(b.tuned)},
                      {"te_default", one(b.te_default)},
                      {"serial", one(b.serial)},
                      {"speedup_vs_serial", Ratio(b.serial.time_ns, b.tuned.time_ns)},
                      {"speedup_vs_te_default", Ratio(b.te_default.time_ns, b.tuned.time_ns)}};
  if (b.baseline) {
    j["baseline"] = one(*b.baseline);
    j["speedup_vs_baseline"] = Ratio(b.baseline->time_ns, b.tuned.time_ns);
  }
  if (!b.note.empty()) j["note"] = b.note;
  return j;
}

// "12.5 %"
std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100);
  return buf;
}

// The baselines whose simulated time the winner's cannot be told apart from
// (their error bands overlap), other than the winner's own config.
struct BandPeer {
  const char* key;   // "te_default" | "baseline" | "serial"
  const char* name;  // for a sentence
  double band;
};

std::vector<BandPeer> BandPeers(const TuneResult& r) {
  std::vector<BandPeer> out;
  if (r.error_band <= 0) return out;
  auto consider = [&](const char* key, const char* name, const OverlapConfig& c, double ns, double band) {
    if (ns > 0 && !(c == r.config) && WithinEachOthersBand(r.time_ns, r.error_band, ns, band)) {
      out.push_back({key, name, band});
    }
  };
  consider("te_default", "TE's default", r.te_default, r.te_default_ns, r.te_default_error_band);
  if (r.baseline) consider("baseline", "the baseline", *r.baseline, r.baseline_ns, r.baseline_error_band);
  consider("serial", "serial", OverlapConfig{}, r.serial_ns, r.serial_error_band);
  return out;
}

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
        {"lower_bound_ns", r.lower_bound_ns},
        {"efficiency", Ratio(r.lower_bound_ns, r.time_ns)},
        {"gap", r.gap ? BoundGapJson(*r.gap) : nlohmann::json(nullptr)},
        {"pass", PassName(r.pass)},
        {"gemms", GemmsJson(r)},
        {"candidates", r.candidates},
        {"trials", r.trials},
        {"iterations", r.iterations},
        {"stopped_by", r.stopped_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.stopped_by)},
    };
    if (!r.layer.empty()) j["layer"] = r.layer;
    if (r.baseline) {
      j["baseline"] = ConfigJson(*r.baseline);
      j["baseline_ns"] = r.baseline_ns;
      j["speedup_vs_baseline"] = Ratio(r.baseline_ns, r.time_ns);
    }
    if (!r.te_note.empty()) j["te_default_note"] = r.te_note;
    if (!r.note.empty()) j["note"] = r.note;
    if (r.error_band > 0) {
      j["error_band"] = r.error_band;
      j["error_band_assumed"] = r.error_band_assumed;
      j["te_default_error_band"] = r.te_default_error_band;
      if (r.baseline) j["baseline_error_band"] = r.baseline_error_band;
      nlohmann::json within = nlohmann::json::array();
      for (const BandPeer& p : BandPeers(r)) within.push_back(p.key);
      j["within_error_band"] = within;
    }
    results.push_back(std::move(j));
  }
  nlohmann::json out = {{"session", s.session},
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
  if (s.block) out["block"] = BlockJson(*s.block);
  return out;
}

std::string TuneTable(const TuneSummary& s, const PresetsWritten& written) {
  std::ostringstream os;
  os << "tuning session " << s.session << ": " << s.workload << " on " << s.topology << ", " << s.backend
     << " backend, " << s.strategy << " — " << s.trials << " trials (" << s.measured << " measured now, " << s.replayed
     << " replayed from the store)\n\n";
  const int op_width = s.block ? 19 : 10;
  // Wide enough for the longest config, so that a long one (uneven splits,
  // comm SMs and priority) never runs into the time column.
  size_t config_width = s.block ? 50 : 44;
  for (const TuneResult& r : s.results) config_width = std::max(config_width, r.config.Describe().size() + 2);
  const bool baseline = std::any_of(s.results.begin(), s.results.end(), [](const TuneResult& r) { return r.baseline; });
  os << Pad("op", op_width) << Pad("best config", config_width) << Pad("time", 11) << Pad("vs serial", 11)
     << Pad("vs TE default", 15) << (baseline ? Pad("vs baseline", 13) : "") << Pad("overlap", 9) << Pad("eff", 6)
     << Pad("tail", 10) << Pad("gemm", 7) << "gap to bound\n";
  for (const TuneResult& r : s.results) {
    os << Pad(r.op, op_width) << Pad(r.config.Describe(), config_width) << Pad(FormatDuration(r.time_ns), 11)
       << Pad(Times(Ratio(r.serial_ns, r.time_ns)), 11) << Pad(Times(Ratio(r.te_default_ns, r.time_ns)), 15)
       << (baseline ? Pad(r.baseline ? Times(Ratio(r.baseline_ns, r.time_ns)) : "-", 13) : "")
       << Pad(Fixed2(r.overlap_ratio), 9) << Pad(Fixed2(Ratio(r.lower_bound_ns, r.time_ns)), 6)
       << Pad(FormatDuration(r.tail_ns), 10) << Pad(r.gap ? Times(r.gap->compute_slowdown) : "-", 7)
       << (r.gap ? GapCell(*r.gap) : "-") << "\n";
    if (r.train_ops && r.train_ops->ops.size() == 2) {
      os << Pad("", op_width) << r.train_ops->ops[0].name << " " << AlgorithmName(r.config.algorithm) << ", "
         << r.train_ops->ops[1].name << " " << r.wgrad_config.Describe() << " (times are the pair's)\n";
    }
  }
  if (s.block) {
    const BlockFigures& b = *s.block;
    auto line = [&](const char* what, const BlockFigures::Figures& f) {
      os << "  " << Pad(what, 12) << Pad(FormatDuration(f.time_ns), 11) << "overlap " << Fixed2(f.overlap_ratio)
         << "  eff " << Fixed2(Ratio(f.lower_bound_ns, f.time_ns)) << "\n";
    };
    os << "\nwhole block (forward + backward): tuned " << Times(Ratio(b.serial.time_ns, b.tuned.time_ns))
       << " vs serial, " << Times(Ratio(b.te_default.time_ns, b.tuned.time_ns)) << " vs TE default";
    if (b.baseline) os << ", " << Times(Ratio(b.baseline->time_ns, b.tuned.time_ns)) << " vs baseline";
    os << "\n";
    line("tuned", b.tuned);
    line("TE default", b.te_default);
    if (b.baseline) line("baseline", *b.baseline);
    line("serial", b.serial);
    if (!b.note.empty()) os << "  note: " << b.note << "\n";
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
  for (const TuneResult& r : s.results) {
    for (const BandPeer& p : BandPeers(r)) {
      os << r.op << ": the tuned config (" << FormatDuration(r.time_ns) << " ±" << Percent(r.error_band) << ") and "
         << p.name << " are within each other's error band (±" << Percent(p.band)
         << "): the sim cannot tell them apart; measure both on the GPU\n";
    }
  }
  if (IsBackend(s.backend, BackendKind::kSim)) {
    os << "figures are simulated (sim backend)";
    double lo = 1, hi = 0;
    for (const TuneResult& r : s.results) lo = std::min(lo, r.error_band), hi = std::max(hi, r.error_band);
    if (hi > 0)
      os << ", expected within ±" << Percent(lo) << (hi > lo ? " to ±" + Percent(hi) : "") << " (error bands)";
    os << "\n";
  }
  os << "presets: " << written.count << " written to " << written.out << "\n";
  return os.str();
}

}  // namespace braid::cli
