// The keys of a run's notes JSON (runs.notes_json) as one table: each key's
// name, type, writer and meaning. Writers name keys through the constants
// below (and write the `hta` and `tuner` notes through their encoders),
// readers check them against the same names, and docs/store-schema.md lists
// the table, which a test holds it to, so that what is written, read and
// documented cannot drift apart. Nested keys are named by their path: an
// object's field is "verify.ok", an array element's "hta[].rank".
//
// Never throws; decoders refuse a field of the wrong type with one
// "damaged store: ..." line naming it. Standard library, core and
// nlohmann-json only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/status.h"

namespace braid {

// A note's JSON type, as docs/store-schema.md writes it (NoteTypeName).
enum class NoteType { kString, kInteger, kNumber, kBoolean, kStrings, kObject, kObjectOrNull, kObjects };
// "string", "integer", "number", "boolean", "array of strings", "object",
// "object or null", "array of objects".
std::string_view NoteTypeName(NoteType t);

struct NoteKey {
  std::string_view name;  // "hta", "hta[].rank", "tuner.session"
  NoteType type;
  std::string_view writer;   // who writes it
  std::string_view meaning;  // one line
};
// Every key, each parent before its fields; docs/store-schema.md lists them.
std::span<const NoteKey> NoteKeys();

// The top-level names, for writers and readers.
namespace note {
inline constexpr const char* kComputeDtype = "compute_dtype";
inline constexpr const char* kNotes = "notes";
inline constexpr const char* kVerify = "verify";
inline constexpr const char* kSeed = "seed";
inline constexpr const char* kLinkEmulation = "link_emulation";
inline constexpr const char* kLowerBound = "lower_bound";
inline constexpr const char* kErrorBand = "error_band";
inline constexpr const char* kErrorBandAssumed = "error_band_assumed";
inline constexpr const char* kLayer = "layer";
inline constexpr const char* kTuner = "tuner";
inline constexpr const char* kFiles = "files";
inline constexpr const char* kHta = "hta";
}  // namespace note

// ---- `hta`: per imported rank, HolisticTraceAnalysis's figures, in the
// trace's own unit (Kineto: us, nsys: ns) for the three lengths.
struct HtaRankNote {
  int rank = 0;
  int device = -1;         // CUDA device id, -1 when unknown
  std::string unit;        // "us" | "ns"
  int64_t comm = 0;        // |union of communication kernels|
  int64_t compute = 0;     // |union of computation kernels|
  int64_t overlap = 0;     // |comm ∩ compute|
  double overlap_pct = 0;  // 100 · overlap / comm
  double idle_pct = 0;     // 100 · idle / span
  double compute_pct = 0;  // 100 · compute / span
  bool operator==(const HtaRankNote&) const = default;
};
// One element of the `hta` array.
nlohmann::json HtaRankNoteJson(const HtaRankNote& h);
// The `hta` array of a notes object (none: empty). Every field of every
// element must be there with its type: the importer writes them all.
[[nodiscard]] Result<std::vector<HtaRankNote>> DecodeHtaNotes(const nlohmann::json& notes, std::string_view where);

// ---- `tuner`: the trial a tuner's run was measured for.
struct TunerNote {
  int64_t session = 0;
  std::string trial;  // the trial key (EncodeTrialKey)
  std::string layer;  // "llama3-70b/fc1"; empty for one op
  bool operator==(const TunerNote&) const = default;
};
nlohmann::json TunerNoteJson(const TunerNote& t);
// The `tuner` note of a notes object; NotFound when the run is not a trial's.
[[nodiscard]] Result<TunerNote> DecodeTunerNote(const nlohmann::json& notes, std::string_view where);

}  // namespace braid
