// The table of a run's notes keys (braid/notes_keys.h): docs/store-schema.md
// lists exactly its rows, every key round-trips through the notes text, and
// the `hta` and `tuner` notes are written and read by their codec.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/notes_keys.h"
#include "braid/stored_text.h"

namespace braid {
namespace notes_keys_test {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

struct DocRow {
  std::string type, writer, meaning;
};

// The rows of the notes table in docs/store-schema.md: the first table after
// the `runs.notes_json` heading, "| `key` | type | writer | meaning |".
std::map<std::string, DocRow> DocumentedKeys() {
  std::ifstream in(std::string(BRAID_SOURCE_DIR) + "/docs/store-schema.md");
  std::map<std::string, DocRow> rows;
  std::string line;
  bool in_section = false, in_table = false;
  while (std::getline(in, line)) {
    if (line.starts_with("**`runs.notes_json`**")) in_section = true;
    if (!in_section) continue;
    if (!line.starts_with("| `")) {
      if (in_table) break;  // the table's end
      continue;
    }
    in_table = true;
    std::vector<std::string> cells;
    std::stringstream s(line.substr(2));
    for (std::string cell; std::getline(s, cell, '|');) {
      const size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    if (cells.size() < 4 || cells[0].size() < 2) continue;
    rows[cells[0].substr(1, cells[0].size() - 2)] = {cells[1], cells[2], cells[3]};
  }
  return rows;
}

std::string RowOf(const NoteKey& k) {
  return "| `" + std::string(k.name) + "` | " + std::string(NoteTypeName(k.type)) + " | " + std::string(k.writer) +
         " | " + std::string(k.meaning) + " |";
}

TEST(NotesKeys, TheSchemaDocumentsEveryKeyWithItsType) {
  const std::map<std::string, DocRow> doc = DocumentedKeys();
  ASSERT_FALSE(doc.empty()) << "no notes table under **`runs.notes_json`** in docs/store-schema.md";
  std::set<std::string> in_table;
  for (const NoteKey& k : NoteKeys()) {
    in_table.insert(std::string(k.name));
    const auto it = doc.find(std::string(k.name));
    ASSERT_NE(it, doc.end()) << "docs/store-schema.md lacks the row\n" << RowOf(k);
    EXPECT_EQ(it->second.type, NoteTypeName(k.type)) << RowOf(k);
    EXPECT_EQ(it->second.writer, k.writer) << RowOf(k);
    EXPECT_EQ(it->second.meaning, k.meaning) << RowOf(k);
  }
  for (const auto& [name, row] : doc) {
    EXPECT_TRUE(in_table.contains(name)) << "docs/store-schema.md documents `" << name
                                         << "`, which braid/notes_keys.h does not have";
  }
}

// A value of each type; objects get their fields from their own rows.
Json SampleOf(NoteType t) {
  switch (t) {
    case NoteType::kString:
      return "text";
    case NoteType::kInteger:
      return 3;
    case NoteType::kNumber:
      return 0.25;
    case NoteType::kBoolean:
      return true;
    case NoteType::kStrings:
      return {"a", "b"};
    case NoteType::kObject:
    case NoteType::kObjectOrNull:
      return Json::object();
    case NoteType::kObjects:
      return Json::array({Json::object()});
  }
  return nullptr;
}

// The JSON pointer of a key's path: "hta[].rank" -> /hta/0/rank.
Json::json_pointer PointerOf(std::string_view name) {
  std::string p = "/";
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.substr(i).starts_with("[].")) {
      p += "/0/";
      i += 2;
    } else {
      p += name[i] == '.' ? '/' : name[i];
    }
  }
  return Json::json_pointer(p);
}

// Every key of the table under its top-level parent, with a value of its
// type; the layer note gets the fields its reader requires.
Json WholeNotes() {
  Json notes = Json::object();
  for (const NoteKey& k : NoteKeys()) {
    const Json::json_pointer at = PointerOf(k.name);
    if (!notes.contains(at)) notes[at] = SampleOf(k.type);
  }
  notes[note::kLayer] = {{"describe", "a block"}, {"ops", Json::array()}};
  return notes;
}

TEST(NotesKeys, PathsNameTheirPlaceInTheNotes) {
  EXPECT_EQ(PointerOf("seed").to_string(), "/seed");
  EXPECT_EQ(PointerOf("verify.ok").to_string(), "/verify/ok");
  EXPECT_EQ(PointerOf("hta[].rank").to_string(), "/hta/0/rank");
}

// Per key: written alone (with its parent) into a notes text, decoded back
// to the same value.
TEST(NotesKeys, EveryKeyRoundTripsThroughTheNotesText) {
  const Json whole = WholeNotes();
  for (const NoteKey& k : NoteKeys()) {
    SCOPED_TRACE(std::string(k.name));
    const Json::json_pointer at = PointerOf(k.name);
    std::string top(k.name.substr(0, k.name.find_first_of(".[")));
    const Json notes = {{top, whole[top]}};
    Result<Json> back = DecodeNotesText(notes.dump(), "run 1");
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_TRUE(back->contains(at));
    EXPECT_EQ((*back)[at], notes[at]);
  }
}

// A key's value of another type is refused where the reader checks it.
TEST(NotesKeys, ATopLevelKeyOfTheWrongTypeIsRefusedNamingIt) {
  for (const NoteKey& k : NoteKeys()) {
    if (k.name.find_first_of(".[") != std::string_view::npos) continue;
    // DecodeNotesText checks what readers print; the seed and the tuner
    // note are not printed (DecodeTunerNote checks the latter).
    if (k.name == note::kSeed || k.name == note::kTuner) continue;
    SCOPED_TRACE(std::string(k.name));
    const Json wrong = k.type == NoteType::kString ? Json(7) : Json("seven");
    Result<Json> back = DecodeNotesText(Json{{std::string(k.name), wrong}}.dump(), "run 2");
    ASSERT_FALSE(back.ok());
    EXPECT_EQ(back.status().message().rfind("damaged store: run 2 has ", 0), 0u) << back.status().message();
    EXPECT_THAT(back.status().message(), HasSubstr("'" + std::string(k.name) + "'"));
  }
}

HtaRankNote Hta(int rank) { return {rank, rank + 1, "us", 1200 + rank, 3400, 900, 75.0, 12.5, 61.25}; }

// Every field the encoders write is a row of the table, with its type, and
// every row under `hta[]` and `tuner` is written.
TEST(NotesKeys, TheEncodersWriteExactlyTheTablesFields) {
  std::map<std::string, NoteType> table;
  for (const NoteKey& k : NoteKeys()) table[std::string(k.name)] = k.type;
  std::set<std::string> written;
  auto check = [&](const std::string& parent, const Json& j) {
    for (const auto& [field, value] : j.items()) {
      const std::string name = parent + field;
      written.insert(name);
      ASSERT_TRUE(table.contains(name)) << name;
      switch (table[name]) {
        case NoteType::kInteger:
          EXPECT_TRUE(value.is_number_integer()) << name;
          break;
        case NoteType::kNumber:
          EXPECT_TRUE(value.is_number()) << name;
          break;
        case NoteType::kString:
          EXPECT_TRUE(value.is_string()) << name;
          break;
        default:
          ADD_FAILURE() << name << " has a type the encoders do not write";
      }
    }
  };
  check("hta[].", HtaRankNoteJson(Hta(0)));
  check("tuner.", TunerNoteJson({4, "fc1|serial|baseline", "llama3-70b/fc1"}));
  for (const auto& [name, type] : table) {
    if (name.starts_with("hta[].") || name.starts_with("tuner.")) {
      EXPECT_TRUE(written.contains(name)) << name;
    }
  }
}

TEST(NotesKeys, HtaNotesRoundTrip) {
  const std::vector<HtaRankNote> ranks = {Hta(0), Hta(1)};
  Json notes = {{note::kHta, Json::array()}};
  for (const HtaRankNote& h : ranks) notes[note::kHta].push_back(HtaRankNoteJson(h));
  Result<Json> text = DecodeNotesText(notes.dump(), "run 3");
  ASSERT_TRUE(text.ok()) << text.status().message();
  Result<std::vector<HtaRankNote>> back = DecodeHtaNotes(*text, "run 3");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, ranks);
  // The reader of one rank's figures finds what the encoder wrote.
  EXPECT_EQ(HtaNote(*text, 1)["overlap_pct"], 75.0);
  EXPECT_EQ(HtaNote(*text, 1).count("rank"), 0u);
  // No hta note: no ranks.
  Result<std::vector<HtaRankNote>> none = DecodeHtaNotes(Json::object(), "run 3");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// The bytes the importer stored before the codec wrote them: unchanged.
TEST(NotesKeys, HtaNoteTextIsTheImportersAsBefore) {
  EXPECT_EQ(HtaRankNoteJson(Hta(0)).dump(),
            R"({"comm":1200,"compute":3400,"compute_pct":61.25,"device":1,"idle_pct":12.5,"overlap":900,)"
            R"("overlap_pct":75.0,"rank":0,"unit":"us"})");
}

TEST(NotesKeys, DamagedHtaNotesAreOneLineNamingTheField) {
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"hta":{"rank":0}})", "'hta'"},
           {R"({"hta":[1]})", "'hta'"},
           {R"({"hta":[{"rank":"0"}]})", "'hta[].rank'"},
           {R"({"hta":[{"rank":0,"device":0,"unit":"us","comm":1.5}]})", "'hta[].comm'"},
           {R"({"hta":[{"rank":0,"device":0,"unit":7}]})", "'hta[].unit'"},
       }) {
    SCOPED_TRACE(text);
    Result<std::vector<HtaRankNote>> r = DecodeHtaNotes(Json::parse(text), "run 9");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message().rfind("damaged store: run 9 has notes field " + field, 0), 0u)
        << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
}

TEST(NotesKeys, TunerNoteRoundTrips) {
  const TunerNote t{12, EncodeTrialKey({"fc2", "ring chunks=2", "search"}), "llama3-70b/fc2"};
  const Json notes = {{note::kTuner, TunerNoteJson(t)}};
  Result<Json> text = DecodeNotesText(notes.dump(), "run 4");
  ASSERT_TRUE(text.ok()) << text.status().message();
  Result<TunerNote> back = DecodeTunerNote(*text, "run 4");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, t);
  // The bytes the trial runner stored before: unchanged.
  EXPECT_EQ(TunerNoteJson({1, "k", ""}).dump(), R"({"layer":"","session":1,"trial":"k"})");
  // A run that is not a trial's has none.
  EXPECT_EQ(DecodeTunerNote(Json::object(), "run 4").status().code(), StatusCode::kNotFound);
}

TEST(NotesKeys, DamagedTunerNotesAreOneLineNamingTheField) {
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"tuner":[1]})", "'tuner'"},
           {R"({"tuner":{"session":"1","trial":"k","layer":""}})", "'tuner.session'"},
           {R"({"tuner":{"session":1,"layer":""}})", "'tuner.trial'"},
           {R"({"tuner":{"session":1,"trial":"k","layer":null}})", "'tuner.layer'"},
       }) {
    SCOPED_TRACE(text);
    Result<TunerNote> r = DecodeTunerNote(Json::parse(text), "run 5");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message().rfind("damaged store: run 5 has notes field " + field, 0), 0u)
        << r.status().message();
  }
}

}  // namespace
}  // namespace notes_keys_test
}  // namespace braid
