// Preset files: the tuner's winners, one config per workload key, and the
// runtime loader an application links (braid_presets: braid_core only, no
// SQLite, Qt or CUDA). Format: presets/README.md.
//
// A loaded PresetTable is immutable; Lookup may be called from many threads
// at once without synchronization.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

inline constexpr int kPresetFormatVersion = 1;

// What a preset is for. Two presets with equal keys describe the same thing.
struct PresetKey {
  std::string gpu;       // "h100-sxm"
  std::string topology;  // "h100-sxm"
  Workload workload;     // op, m, n, k, dtype, tp
  std::string layer;     // optional, "llama3-70b/fc1"

  bool operator==(const PresetKey& o) const;
};

struct Preset {
  PresetKey key;
  OverlapConfig config;
  // Measured figures (the backend's clock; simulated when backend == "sim").
  double time_ns = 0;
  double speedup_vs_serial = 0;
  double speedup_vs_te_default = 0;
  double overlap_ratio = 0;  // 0..1
  double tail_ns = 0;
  std::string backend = "sim";   // "sim" | "cpu" | "cuda"
  std::string braid_version;     // "0.1.0"
  std::string date;              // ISO 8601, "2026-11-21T22:00:00Z"
};

struct PresetFile {
  int version = kPresetFormatVersion;
  std::vector<Preset> presets;
};

// Parses a whole preset file. Errors are one line, "file:line:col: field ...".
Result<PresetFile> ParsePresetFile(std::string_view text, std::string_view origin);
Result<PresetFile> LoadPresetFile(const std::string& path);

// TOML text that ParsePresetFile reads back to an equal PresetFile.
std::string WritePresets(const PresetFile& file);

// Adds `update`'s presets to `existing`. For a key present in both, the
// later date wins (ISO 8601 strings compare as text); on equal dates the
// update wins. Other presets are kept, in order. Refuses an update whose
// version is not kPresetFormatVersion.
Status MergeInto(PresetFile& existing, const PresetFile& update);

// Writes to "path.tmp.<pid>" beside `path`, then renames over it: on any
// failure `path` is untouched and the temporary file is removed.
Status SavePresetsAtomically(const std::string& path, const PresetFile& file);

enum class PresetMatch { kNone, kExact, kNearest };
std::string_view PresetMatchName(PresetMatch m);  // "none" | "exact" | "nearest"

struct LookupResult {
  PresetMatch match = PresetMatch::kNone;
  const Preset* preset = nullptr;  // owned by the table; null for kNone
  double distance = 0;             // in log space; 0 for exact
};

class PresetTable {
 public:
  PresetTable();
  PresetTable(PresetTable&&) noexcept;
  PresetTable& operator=(PresetTable&&) noexcept;
  ~PresetTable();

  static Result<PresetTable> Load(const std::string& path);
  static Result<PresetTable> Parse(std::string_view text, std::string_view origin);
  static PresetTable FromFile(PresetFile file);

  // The entry whose key equals (gpu, topology, w) — layer names are ignored —
  // or, failing that, the nearest by shape: the smallest Euclidean distance
  // in (ln M, ln N, ln K) among entries with the same gpu, topology, tp and
  // op. Entries of w's dtype are preferred: when there are none, the nearest
  // entry of any other dtype is returned, always as kNearest. Ties go to the
  // earlier entry. Sizes below 1 find nothing.
  LookupResult Lookup(const Workload& w, std::string_view gpu, std::string_view topology) const;

  size_t size() const;
  const std::vector<Preset>& presets() const;

 private:
  struct Index;
  std::unique_ptr<Index> index_;
};

}  // namespace braid
