// Writing, merging and atomically saving preset files.
#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "braid/backend_kind.h"
#include "braid/presets.h"
#include "braid/safe_write.h"
#include "braid/toml_quote.h"

namespace braid {
namespace {

// Shortest text that reads back to the same double, always a TOML float.
std::string Float(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

void WritePreset(std::ostringstream& os, const Preset& p) {
  const Workload& w = p.key.workload;
  const OverlapConfig& c = p.config;
  os << "\n[[preset]]\n";
  os << "gpu = " << TomlQuote(p.key.gpu) << "\n";
  os << "topology = " << TomlQuote(p.key.topology) << "\n";
  if (!p.key.layer.empty()) os << "layer = " << TomlQuote(p.key.layer) << "\n";
  if (p.key.pass != Pass::kFprop) os << "pass = " << TomlQuote(PassName(p.key.pass)) << "\n";
  os << "tp = " << w.tp << "\nop = " << TomlQuote(OpName(w.op)) << "\ndtype = " << TomlQuote(DTypeName(w.dtype))
     << "\n";
  os << "m = " << w.m << "\nn = " << w.n << "\nk = " << w.k << "\n";
  os << "algorithm = " << TomlQuote(AlgorithmName(c.algorithm)) << "\nchunks = " << c.chunks << "\n";
  if (!c.splits.empty()) {
    os << "splits = [";
    for (size_t i = 0; i < c.splits.size(); ++i) os << (i ? ", " : "") << c.splits[i];
    os << "]\n";
  }
  os << "streams = " << c.comm_lanes << "\ncomm_sms = " << c.comm_sms << "\n";
  os << "comm_engine = " << TomlQuote(CommEngineName(c.comm_engine)) << "\n";
  os << "comm_priority = " << TomlQuote(c.comm_high_priority ? "high" : "normal") << "\n";
  if (c.comm_dtype.has_value()) os << "comm_dtype = " << TomlQuote(DTypeName(*c.comm_dtype)) << "\n";
  if (c.sm_margin) os << "sm_margin = true\n";
  if (c.wgrad_comm_sms > 0) os << "wgrad_comm_sms = " << c.wgrad_comm_sms << "\n";
  os << "time_ns = " << Float(p.time_ns) << "\nspeedup_vs_serial = " << Float(p.speedup_vs_serial) << "\n";
  os << "speedup_vs_te_default = " << Float(p.speedup_vs_te_default) << "\n";
  os << "overlap_ratio = " << Float(p.overlap_ratio) << "\ntail_ns = " << Float(p.tail_ns) << "\n";
  if (p.error_band > 0) os << "error_band = " << Float(p.error_band) << "\n";
  os << "backend = " << TomlQuote(p.backend) << "\n";
  if (IsBackend(p.backend, BackendKind::kSim)) os << "simulated = true\n";
  os << "braid_version = " << TomlQuote(p.braid_version) << "\ndate = " << TomlQuote(p.date) << "\n";
}

void WriteDpPreset(std::ostringstream& os, const DpPreset& p) {
  const DpPresetKey& k = p.key;
  os << "\n[[dp_preset]]\n";
  os << "gpu = " << TomlQuote(k.gpu) << "\ntopology = " << TomlQuote(k.topology) << "\nmodel = " << TomlQuote(k.model)
     << "\n";
  os << "tokens = " << k.tokens << "\ntp = " << k.tp << "\ndp = " << k.dp
     << "\nzero = " << TomlQuote(ZeroStageName(k.zero)) << "\ndtype = " << TomlQuote(DTypeName(k.dtype)) << "\n";
  os << "schedule = " << TomlQuote(DpScheduleName(p.schedule)) << "\nbucket_params = " << p.bucket_params << "\n";
  if (p.schedule == DpSchedule::kDecomposed) {
    os << "decomposed_layers = " << p.decomposed_layers
       << "\ndecomposition = " << TomlQuote(AlgorithmName(p.decomposition))
       << "\ndecomposition_chunks = " << p.decomposition_chunks << "\n";
  }
  os << "prefetch = " << p.prefetch << "\ncomm_sms = " << p.comm_sms << "\n";
  os << "step_ns = " << Float(p.step_ns) << "\nspeedup_vs_megatron = " << Float(p.speedup_vs_megatron) << "\n";
  os << "backend = " << TomlQuote(p.backend) << "\n";
  os << "braid_version = " << TomlQuote(p.braid_version) << "\ndate = " << TomlQuote(p.date) << "\n";
}

// The later date wins a slot both files hold (equal: the update); others are kept.
template <typename Entry>
void MergeEntries(std::vector<Entry>& existing, const std::vector<Entry>& update) {
  for (const Entry& u : update) {
    bool found = false;
    for (Entry& e : existing) {
      if (!SameSlot(e, u)) continue;
      found = true;
      if (u.date >= e.date) e = u;  // ISO 8601 orders as text; equal → update wins
      break;
    }
    if (!found) existing.push_back(u);
  }
}

}  // namespace

int PresetFormatVersionFor(const PresetFile& file) {
  int version = 1;
  if (!file.dp_presets.empty()) return 5;
  for (const Preset& p : file.presets) {
    if (IsUlysses(p.config.algorithm)) return 5;
  }
  for (const Preset& p : file.presets) {
    const Algorithm a = p.config.algorithm;
    if (p.config.sm_margin || p.config.wgrad_comm_sms > 0) return 4;
    if (a == Algorithm::kDirect) version = 3;
    if (version < 2 && (p.key.pass != Pass::kFprop || a == Algorithm::kBulk || a == Algorithm::kExternal)) {
      version = 2;
    }
  }
  return version;
}

std::string WritePresets(const PresetFile& file) {
  std::ostringstream os;
  os << "# Braid overlap presets (format: presets/README.md).\n";
  os << "format = \"braid-presets\"\nversion = " << PresetFormatVersionFor(file) << "\n";
  for (const Preset& p : file.presets) WritePreset(os, p);
  for (const DpPreset& p : file.dp_presets) WriteDpPreset(os, p);
  return os.str();
}

Status MergeInto(PresetFile& existing, const PresetFile& update) {
  for (int v : {update.version, existing.version}) {
    if (v < kOldestPresetFormatVersion || v > kPresetFormatVersion) {
      return Status::Invalid("cannot merge preset files of version " + std::to_string(update.version) + " into " +
                             std::to_string(existing.version) + " (this build knows versions " +
                             std::to_string(kOldestPresetFormatVersion) + " to " +
                             std::to_string(kPresetFormatVersion) + ")");
    }
  }
  existing.version = std::max(existing.version, update.version);
  MergeEntries(existing.presets, update.presets);
  MergeEntries(existing.dp_presets, update.dp_presets);
  return Status::Ok();
}

Status SavePresetsAtomically(const std::string& path, const PresetFile& file) {
  // Under the file's lock: what another process saved since we read the file
  // is merged in, not overwritten.
  return UpdateFileAtomically(path, [&](const std::optional<std::string>& current) -> Result<std::string> {
    PresetFile merged;
    if (current) {
      BRAID_ASSIGN_OR_RETURN(auto on_disk, ParsePresetFile(*current, path));
      merged = std::move(on_disk);
    }
    BRAID_RETURN_IF_ERROR(MergeInto(merged, file));
    return WritePresets(merged);
  });
}

}  // namespace braid
