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

#include "braid/data_parallel.h"
#include "braid/dp_schedule.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

// Version 2 adds each preset's `pass` (fprop, dgrad, wgrad) and the backward
// methods bulk and external. Version 1 files (every preset fprop) still load,
// and a file whose presets are all fprop is written as version 1, so that
// older readers keep reading it. Version 3 adds the algorithm `direct`; a
// file is written as version 3 only when one of its presets is direct.
// Version 4 adds `sm_margin` and `wgrad_comm_sms` (TE's set_sm_margin and a
// bulk pair's second budget), written only where set. Version 5 adds the
// algorithms a2a and a2a_direct (Ulysses all-to-alls) and `[[dp_preset]]`
// entries (the tuned data-parallel side of a training step); a file says 5
// only when it holds one of them.
inline constexpr int kPresetFormatVersion = 5;
inline constexpr int kOldestPresetFormatVersion = 1;

// What a preset is for. Two presets with equal keys and the same backend
// describe the same thing (SameSlot); a file holds at most one of them.
struct PresetKey {
  std::string gpu;           // "h100-sxm"
  std::string topology;      // "h100-sxm"
  Workload workload;         // op, m, n, k, dtype, tp
  std::string layer;         // optional, "llama3-70b/fc1"
  Pass pass = Pass::kFprop;  // which GEMM of the linear (version 2)

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
  // sim presets: time_ns's expected relative error (docs/simulator.md,
  // "Error bands"; 0.12 = ±12 %); 0 where none was given (a measuring
  // backend, or a file from before).
  double error_band = 0;
  std::string backend = "sim";  // "sim" | "cpu" | "cuda"
  std::string braid_version;    // "0.1.0"
  std::string date;             // ISO 8601, "2026-11-21T22:00:00Z"
};

// Equal keys and the same backend: a cpu measurement never replaces (or
// answers for) a simulated or real GPU one.
bool SameSlot(const Preset& a, const Preset& b);

// What a data-parallel preset is for (version 5): a model's block shape on
// a TP × DP grid with one ZeRO stage (`braid tune --dp`).
struct DpPresetKey {
  std::string gpu;       // "h100-sxm"
  std::string topology;  // "h100-sxm-4node-ib"
  std::string model;     // "llama3-70b"
  int64_t tokens = 0;    // seq·batch a DP rank
  int tp = 1, dp = 1;
  ZeroStage zero = ZeroStage::kNone;
  DType dtype = DType::kBf16;

  bool operator==(const DpPresetKey& o) const;
};

// The DP side's winner: braid/train_step.h's DpSetup in the loader's own
// words (no dependency on the tuner), with Megatron-LM's counterparts in
// presets/README.md.
struct DpPreset {
  DpPresetKey key;
  DpSchedule schedule = DpSchedule::kBucketed;
  int64_t bucket_params = 0;                   // bucketed, and a decomposed step's other layers
  int decomposed_layers = -1;                  // decomposed: the last layers decomposed (-1 all)
  Algorithm decomposition = Algorithm::kRing;  // decomposed: their plan
  int decomposition_chunks = 1;
  int prefetch = 1;  // ZeRO: gathers queued ahead
  int comm_sms = 0;  // the DP collectives' NCCL CTAs (0: NCCL's default)
  double step_ns = 0;
  double speedup_vs_megatron = 0;  // over Megatron-LM's DP defaults on the same block
  std::string backend = "sim";
  std::string braid_version;
  std::string date;
};

// Equal keys and the same backend.
bool SameSlot(const DpPreset& a, const DpPreset& b);

struct PresetFile {
  int version = kPresetFormatVersion;
  std::vector<Preset> presets;
  std::vector<DpPreset> dp_presets;  // version 5
};

// Parses a whole preset file. Errors are one line, "file:line:col: field ...".
// Two entries for one slot (SameSlot) are an error naming both lines.
Result<PresetFile> ParsePresetFile(std::string_view text, std::string_view origin);
Result<PresetFile> LoadPresetFile(const std::string& path);

// TOML text that ParsePresetFile reads back to an equal PresetFile, at the
// oldest version that can hold it (PresetFormatVersionFor).
std::string WritePresets(const PresetFile& file);
// 2 when a preset is not fprop or uses a backward method; else 1.
int PresetFormatVersionFor(const PresetFile& file);

// Adds `update`'s presets to `existing`. For a slot (SameSlot) in both, the
// later date wins (ISO 8601 strings compare as text); on equal dates the
// update wins. Other presets are kept, in order. Refuses a file whose
// version this build does not know.
Status MergeInto(PresetFile& existing, const PresetFile& update);

// Merges `file` into the preset file at `path` (created when absent) and
// saves the result, all under the file's lock (braid/safe_write.h): the file
// is re-read while the lock is held, so concurrent savers keep each other's
// entries. Written to a temporary beside the target and renamed over it; a
// symlink's target is written; a non-regular target is refused (Invalid);
// on any failure `path` is untouched.
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

  // Only entries with the same gpu, topology, tp, op, dtype and pass answer, and of
  // the asked backend: "sim", "cpu" or "cuda", or "" for the GPU backends
  // (cuda and sim; a cpu measurement never answers a GPU lookup). Returns
  // the entry whose shape equals w's (layer names are ignored) or, failing
  // that, the nearest by shape: the smallest Euclidean distance in
  // (ln M, ln N, ln K). An exact match beats a nearest one; at equal match
  // and distance a cuda entry beats a sim one, then the earlier entry wins.
  // Sizes below 1 find nothing.
  LookupResult Lookup(const Workload& w, std::string_view gpu, std::string_view topology, std::string_view backend = "",
                      Pass pass = Pass::kFprop) const;

  size_t size() const;
  const std::vector<Preset>& presets() const;

  // The DP preset of exactly `key` of the asked backend ("" = sim or cuda,
  // a cuda one first), or null.
  const DpPreset* LookupDp(const DpPresetKey& key, std::string_view backend = "") const;
  const std::vector<DpPreset>& dp_presets() const;

 private:
  struct Index;
  std::unique_ptr<Index> index_;
};

}  // namespace braid
