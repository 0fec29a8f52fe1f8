// The `hta` and `tuner` notes (braid/notes_keys.h): written and read here,
// their fields checked against the table's types.
#include <algorithm>
#include <exception>

#include "braid/notes_keys.h"
#include "braid/stored_text.h"

namespace braid {

namespace {

using Json = nlohmann::json;

bool HasType(const Json& v, NoteType t) {
  switch (t) {
    case NoteType::kString:
      return v.is_string();
    case NoteType::kInteger:
      return v.is_number_integer();
    case NoteType::kNumber:
      return v.is_number();
    case NoteType::kBoolean:
      return v.is_boolean();
    case NoteType::kStrings:
      return v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& s) { return s.is_string(); });
    case NoteType::kObject:
      return v.is_object();
    case NoteType::kObjectOrNull:
      return v.is_object() || v.is_null();
    case NoteType::kObjects:
      return v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& o) { return o.is_object(); });
  }
  return false;
}

// The table's type of `name`; every name asked for here is in the table
// (tests/db/notes_keys_test.cc writes each and finds it).
NoteType TypeOf(std::string_view name) {
  for (const NoteKey& k : NoteKeys()) {
    if (k.name == name) return k.type;
  }
  return NoteType::kObject;
}

// `obj[field]`, present and of the type the table gives `path`.
Result<const Json*> Field(const Json& obj, const std::string& path, std::string_view field, std::string_view where) {
  const NoteType type = TypeOf(path);
  const auto it = obj.find(field);
  if (it == obj.end() || !HasType(*it, type)) {
    const std::string_view name = NoteTypeName(type);
    const bool vowel = std::string_view("aeiou").find(name.front()) != std::string_view::npos;
    return DamagedStore(where, "notes field '" + path + "' that is not " + (vowel ? "an " : "a ") + std::string(name));
  }
  return &*it;
}

template <typename T>
Status Read(const Json& obj, const char* parent, std::string_view field, std::string_view where, T* out) {
  BRAID_ASSIGN_OR_RETURN(const Json* v, Field(obj, std::string(parent) + std::string(field), field, where));
  *out = v->get<T>();
  return Status::Ok();
}

Status ReadHta(const Json& h, std::string_view where, HtaRankNote* out) {
  constexpr const char* kOf = "hta[].";
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "rank", where, &out->rank));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "device", where, &out->device));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "unit", where, &out->unit));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "comm", where, &out->comm));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "compute", where, &out->compute));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "overlap", where, &out->overlap));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "overlap_pct", where, &out->overlap_pct));
  BRAID_RETURN_IF_ERROR(Read(h, kOf, "idle_pct", where, &out->idle_pct));
  return Read(h, kOf, "compute_pct", where, &out->compute_pct);
}

}  // namespace

Json HtaRankNoteJson(const HtaRankNote& h) {
  return {{"rank", h.rank},
          {"device", h.device},
          {"unit", h.unit},
          {"comm", h.comm},
          {"compute", h.compute},
          {"overlap", h.overlap},
          {"overlap_pct", h.overlap_pct},
          {"idle_pct", h.idle_pct},
          {"compute_pct", h.compute_pct}};
}

Result<std::vector<HtaRankNote>> DecodeHtaNotes(const Json& notes, std::string_view where) {
  std::vector<HtaRankNote> out;
  if (!notes.is_object() || !notes.contains(note::kHta)) return out;
  BRAID_ASSIGN_OR_RETURN(const Json* hta, Field(notes, note::kHta, note::kHta, where));
  // A figure too large for its field is not the importer's: refused, not thrown.
  try {
    for (const Json& h : *hta) BRAID_RETURN_IF_ERROR(ReadHta(h, where, &out.emplace_back()));
  } catch (const std::exception& e) {
    return DamagedStore(where, std::string("a notes field 'hta' that does not parse: ") + e.what());
  }
  return out;
}

Json TunerNoteJson(const TunerNote& t) { return {{"session", t.session}, {"trial", t.trial}, {"layer", t.layer}}; }

Result<TunerNote> DecodeTunerNote(const Json& notes, std::string_view where) {
  if (!notes.is_object() || !notes.contains(note::kTuner))
    return Status::NotFound(std::string(where) + " is not a trial's run");
  BRAID_ASSIGN_OR_RETURN(const Json* tuner, Field(notes, note::kTuner, note::kTuner, where));
  TunerNote t;
  try {
    BRAID_RETURN_IF_ERROR(Read(*tuner, "tuner.", "session", where, &t.session));
    BRAID_RETURN_IF_ERROR(Read(*tuner, "tuner.", "trial", where, &t.trial));
    BRAID_RETURN_IF_ERROR(Read(*tuner, "tuner.", "layer", where, &t.layer));
  } catch (const std::exception& e) {
    return DamagedStore(where, std::string("a notes field 'tuner' that does not parse: ") + e.what());
  }
  return t;
}

}  // namespace braid
