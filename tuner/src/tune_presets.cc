#include <ctime>

#include "braid/tune.h"

namespace braid {

namespace {

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

PresetFile PresetsOf(const TuneSummary& s, const std::string& braid_version, const std::string& date) {
  PresetFile f;
  for (const TuneResult& r : s.results) {
    Preset p;
    p.key = {s.gpu, s.topology, r.workload, r.layer, r.pass};
    p.config = r.config;
    p.time_ns = r.time_ns;
    p.speedup_vs_serial = Ratio(r.serial_ns, r.time_ns);
    p.speedup_vs_te_default = Ratio(r.te_default_ns, r.time_ns);
    p.overlap_ratio = r.overlap_ratio;
    p.tail_ns = r.tail_ns;
    p.error_band = r.error_band;
    p.backend = s.backend;
    p.braid_version = braid_version;
    p.date = date;
    if (r.train_ops && r.train_ops->ops.size() == 2) {
      // The wgrad's preset: what it followed, with the pair's figures.
      Preset wgrad = p;
      wgrad.key.workload = r.train_ops->ops[1].gemm;
      wgrad.key.pass = Pass::kWgrad;
      wgrad.config = r.wgrad_config;
      f.presets.push_back(std::move(p));
      f.presets.push_back(std::move(wgrad));
      continue;
    }
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
