// The codec of every text the store keeps beside its typed columns: a run's
// config JSON and notes JSON (with the layer note), a trial's key, config
// JSON and samples. Writers encode here and readers decode here — `braid
// run`, report, export, the tuner and the viewer — so a format has one owner
// and damaged text gets the same one-line answer from every reader:
//   "damaged store: run 7 has config JSON that does not parse".
//
// The notes' keys are one table (braid/notes_keys.h, with the `hta` and
// `tuner` notes' encoders) and a tuning session's options have their own
// codec (braid/session_options.h); this header includes both, so that the
// modules above reach every stored text through one door.
//
// Stored text comes from a file a user may have edited or damaged: nothing
// here throws; a field of the wrong type, missing or null is an Invalid
// status naming the field. Standard library, core and nlohmann-json only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/layer_workload.h"
#include "braid/notes_keys.h"
#include "braid/op_figures.h"
#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/session_options.h"
#include "braid/status.h"

namespace braid {

// "damaged store: <what stored> has <problem>", the one form every reader
// uses; `where` names the row ("run 7", "trial 3 of session 2 in s.db").
Status DamagedStore(std::string_view where, std::string_view problem);
// "damaged store: <where>", how DamagedStore's message starts, for the
// readers of rows whose detail follows in its own words ("damaged store:
// run 7 of s.db: an event has kind 9 ...", "damaged store: database disk
// image is malformed"): every damaged-store message starts the same.
std::string DamagedStorePrefix(std::string_view where);

// ---- A run's config JSON: {"algorithm", "chunks", "splits", "streams",
// "comm_sms", "comm_engine", "comm_priority"}, and where set "comm_dtype",
// "sm_margin" (true) and "wgrad_comm_sms". Keys it does not know are ignored
// (a trial's config adds "target", "stage", "warmup").
nlohmann::json ConfigJson(const OverlapConfig& c);
// Invalid names the field: "'chunks' is not an integer".
[[nodiscard]] Result<OverlapConfig> ConfigFromJson(const nlohmann::json& j);
// A stored config text: parsed JSON and the config it holds. Imported runs
// keep "{}" (no config): `allow_empty` accepts it and yields no config.
struct StoredConfig {
  nlohmann::json json = nlohmann::json::object();
  std::optional<OverlapConfig> config;  // absent only for an allowed "{}"
};
[[nodiscard]] Result<StoredConfig> DecodeConfigText(std::string_view text, bool allow_empty, std::string_view where);

// ---- A run's notes JSON: an object whose keys, with their types and
// writers, are the table of braid/notes_keys.h (NoteKeys()): compute_dtype,
// notes, verify, seed, link_emulation, lower_bound, error_band(_assumed),
// layer (LayerJson()), tuner, files and hta. DecodeNotesText checks the
// fields the readers print; unknown keys are kept and left alone.
[[nodiscard]] Result<nlohmann::json> DecodeNotesText(std::string_view text, std::string_view where);

// The layer note: the layer part of a layer run's workload (the store's
// workload columns hold its first GEMM op). Each op has its name, pass
// (fprop, dgrad, wgrad) and shape; with `plan` (a plan of this layer with one
// PlanOp per op: not iso) the method and the config it ran with (ConfigJson,
// "config"; without a plan its own config where it has one), and with
// `figures` (one per op, braid/op_figures.h) its time_ns, compute_ns,
// comm_ns, exposed_comm_ns and overlap_ratio.
nlohmann::json LayerJson(const LayerWorkload& lw, const Plan* plan = nullptr,
                         const std::vector<OpFigures>* figures = nullptr);
// A checked notes object's layer, or null when the run is not a layer run.
const nlohmann::json* LayerNote(const nlohmann::json& notes);
// One op of a layer note: what readers show of the steps named after it
// ("fc2.dgrad.gemm" is a step of op "fc2.dgrad"). A field that is absent or
// of the wrong type is "" (the note was checked when the record was decoded).
struct LayerOpNote {
  std::string name;                  // "fc2.dgrad"
  std::string pass;                  // "fprop" | "dgrad" | "wgrad"
  std::string method;                // "ring", "bulk", "external", ... ("" when not recorded)
  std::string config;                // the config it ran with, as Describe() ("" when not recorded)
  std::optional<OpFigures> figures;  // absent in stores from before per-op figures
};
// The layer note's ops in plan order; empty when the run is not a layer run.
std::vector<LayerOpNote> LayerOpsOf(const nlohmann::json& notes);
// The op a step belongs to: the longest op name that, followed by '.',
// starts `step`; null when none does.
const LayerOpNote* OpOfStep(std::string_view step, const std::vector<LayerOpNote>& ops);
// The HTA figures an importer stored for `rank` ({overlap_pct, idle_pct,
// compute_pct}), or null.
nlohmann::json HtaNote(const nlohmann::json& notes, int rank);
// What a table shows of a stored run's workload: "llama3-70b prefill ...
// (9 ops)" for a layer run, the op's Describe() otherwise, "imported trace,
// 8 rank(s)" for an imported one.
std::string DescribeStoredWorkload(bool has_workload, const Workload& w, const nlohmann::json& notes);

// ---- Trials. The key names a (target, config, stage) once per session:
// "fc1|ring chunks=2 ...|search".
struct TrialKey {
  std::string target;  // the op being tuned: "fc1", "gemm_rs"
  std::string config;  // OverlapConfig::Describe()
  std::string stage;   // "baseline", "search", ...
};
std::string EncodeTrialKey(const TrialKey& k);
// What every key of `target`'s trials starts with ("fc1|"): a session's
// trials of one target are a range of keys.
std::string TrialKeyPrefix(std::string_view target);
// Invalid when the key does not have three '|'-separated parts.
[[nodiscard]] Result<TrialKey> DecodeTrialKey(std::string_view key);

// A trial's config JSON: ConfigJson() plus the target, the stage and the
// warm-up count the trial cost (a reader that counts iterations, such as a
// resumed session, needs it; one that only shows the config does not).
struct TrialConfig {
  OverlapConfig config;
  std::string target;
  std::string stage;
  std::optional<int64_t> warmup;
};
std::string EncodeTrialConfig(const TrialConfig& t);
[[nodiscard]] Result<TrialConfig> DecodeTrialConfig(std::string_view text, std::string_view where);

// A trial's samples: a non-empty JSON array of nanosecond figures.
std::string EncodeSamples(const std::vector<double>& samples_ns);
[[nodiscard]] Result<std::vector<double>> DecodeSamples(std::string_view text, std::string_view where);

}  // namespace braid
