#include <ctime>

#include "braid/tune.h"

namespace braid {

namespace {

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

Result<std::vector<TuneTarget>> TargetsOfLayer(const LayerWorkload& lw) {
  // A training step's GEMMs are coupled (bulk pairs, external wgrads) and
  // its presets need the pass in their key; tuning them one by one as
  // forward GEMMs would write presets that answer the wrong lookups.
  if (lw.phase == Phase::kTrain) {
    return Status::Invalid(
        "tuning a training step (`phase` train) is not supported yet: run its plans with `braid run`; "
        "tune the forward with `phase` prefill");
  }
  std::vector<TuneTarget> targets;
  for (const LayerOp& op : lw.ops) {
    if (op.kind == LayerOpKind::kTpGemm) targets.push_back({op.name, op.gemm, lw.model.name + "/" + op.name});
  }
  if (targets.empty()) {
    return Status::Invalid("model " + lw.model.name + " has no TP GEMMs to tune (" + lw.Describe() + ")");
  }
  return targets;
}

PresetFile PresetsOf(const TuneSummary& s, const std::string& braid_version, const std::string& date) {
  PresetFile f;
  for (const TuneResult& r : s.results) {
    Preset p;
    p.key = {s.gpu, s.topology, r.workload, r.layer};
    p.config = r.config;
    p.time_ns = r.time_ns;
    p.speedup_vs_serial = Ratio(r.serial_ns, r.time_ns);
    p.speedup_vs_te_default = Ratio(r.te_default_ns, r.time_ns);
    p.overlap_ratio = r.overlap_ratio;
    p.tail_ns = r.tail_ns;
    p.backend = s.backend;
    p.braid_version = braid_version;
    p.date = date;
    f.presets.push_back(std::move(p));
  }
  return f;
}

std::string NowIso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace braid
