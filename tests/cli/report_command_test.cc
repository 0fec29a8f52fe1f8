// `braid report` as a tool for a real store (figures, filters, sort,
// compare), `braid --version`, and every reader's answer to damaged stored
// JSON: one line, exit 2, the store untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;
using nlohmann::json;
using ::testing::HasSubstr;

const std::string kSim = "run --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 4 --iters 3 --warmup 0 ";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(h);
}

// The session's status and the counts of its trials and runs.
std::string Rows(const std::string& db) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  std::string out;
  for (const char* q : {"SELECT group_concat(status) FROM tuning_sessions", "SELECT count(*) FROM trials",
                        "SELECT count(*) FROM runs", "SELECT count(*) FROM events"}) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(h, q, -1, &st, nullptr), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
      out += reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    out += ";";
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

void ExpectOneLine(const Outcome& o, int code, const std::string& text) {
  EXPECT_EQ(o.code, code) << o.err;
  EXPECT_THAT(o.err, HasSubstr(text));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.out, "");
}

// Three sim runs: ring, chunked, serial of one workload.
std::string ThreeRuns(const std::string& name) {
  std::string db = TempPath(name);
  std::filesystem::remove(db);
  for (const char* algo : {"ring --chunks 2", "chunked --chunks 4", "serial"}) {
    const Outcome o = Braid(kSim + "--algo " + algo + " --db " + db);
    EXPECT_EQ(o.code, 0) << o.err;
  }
  return db;
}

TEST(CliReport, ListShowsEachRunsKeyFigures) {
  const std::string db = ThreeRuns("report_list.db");
  const Outcome o = Braid("report --json --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  const json j = json::parse(o.out);
  ASSERT_EQ(j["runs"].size(), 3u);
  for (const json& r : j["runs"]) {
    const json& f = r["figures"];
    EXPECT_GT(f["makespan_ns"].get<double>(), 0);
    EXPECT_GE(f["overlap_ratio"].get<double>(), 0);
    EXPECT_GT(f["efficiency"].get<double>(), 0) << "the lower bound is a stored figure";
    EXPECT_LE(f["efficiency"].get<double>(), 1.0);
    // The same figures as the run's own report.
    const Outcome one = Braid("report --json --db " + db + " --run " + r["run"].dump());
    ASSERT_EQ(one.code, 0);
    const json m = json::parse(one.out)["metrics"];
    EXPECT_DOUBLE_EQ(m["makespan_ns"]["p50"].get<double>(), f["makespan_ns"].get<double>());
    EXPECT_DOUBLE_EQ(m["efficiency"]["p50"].get<double>(), f["efficiency"].get<double>());
    // The gap to the bound is derived from the stored figures, as `run` gave it.
    const json gap = json::parse(one.out)["gap"];
    ASSERT_TRUE(gap.is_object());
    EXPECT_NEAR(gap["gap_ns"].get<double>(),
                gap["makespan_ns"].get<double>() - m["lower_bound_ns"]["p50"].get<double>(), 1e-6);
    const Outcome text = Braid("report --db " + db + " --run " + r["run"].dump());
    ASSERT_EQ(text.code, 0);
    EXPECT_THAT(text.out, HasSubstr("gap            "));
    EXPECT_THAT(text.out, HasSubstr(gap["bound"].get<std::string>() + " bound: "));
  }
  const Outcome table = Braid("report --db " + db);
  ASSERT_EQ(table.code, 0);
  EXPECT_THAT(table.out, HasSubstr("makespan"));
  EXPECT_THAT(table.out, HasSubstr("efficiency"));
  EXPECT_THAT(table.out, HasSubstr("ring chunks=2"));
}

// Issue 27 point 9: a long config ran into the next column. Every column
// is as wide as its widest cell: each row's makespan starts where the
// header's does, after at least two spaces.
TEST(CliReport, ALongConfigNeverRunsIntoTheNextColumn) {
  const std::string db = TempPath("report_columns.db");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid(kSim + "--algo serial --db " + db).code, 0);
  const Outcome long_one =
      Braid(kSim + "--algo chunked --chunks 4 --splits 5,1,1,1 --streams 2 --comm-priority normal --db " + db);
  ASSERT_EQ(long_one.code, 0) << long_one.err;
  const Outcome o = Braid("report --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  std::istringstream lines(o.out);
  std::string header;
  std::getline(lines, header);
  const size_t at = header.find("makespan");
  ASSERT_NE(at, std::string::npos) << o.out;
  int rows = 0;
  for (std::string row; std::getline(lines, row); ++rows) {
    ASSERT_GT(row.size(), at) << row;
    EXPECT_EQ(row.substr(at - 2, 2), "  ") << o.out;
    EXPECT_NE(row[at], ' ') << o.out;
  }
  EXPECT_EQ(rows, 2);
  EXPECT_THAT(o.out, HasSubstr("splits=5,1,1,1")) << "the long config is shown whole";
}

TEST(CliReport, FiltersSortAndLimit) {
  const std::string db = ThreeRuns("report_filter.db");
  ASSERT_EQ(
      Braid("run --op ag_gemm --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --iters 2 --warmup 0 --db " + db).code, 0);
  auto ids = [&](const std::string& args) {
    const Outcome o = Braid("report --json --db " + db + " " + args);
    EXPECT_EQ(o.code, 0) << o.err;
    std::vector<int> out;
    const json j = json::parse(o.out);
    for (const json& r : j["runs"]) out.push_back(r["run"].get<int>());
    return out;
  };
  EXPECT_EQ(ids("--op ag_gemm"), std::vector<int>{4});
  EXPECT_EQ(ids("--op gemm_rs").size(), 3u);
  EXPECT_EQ(ids("--backend cpu"), std::vector<int>{});
  EXPECT_EQ(ids("--limit 2"), (std::vector<int>{1, 2}));
  // Sorted by makespan: each run's makespan is no smaller than the one before.
  const Outcome sorted = Braid("report --json --sort makespan --op gemm_rs --db " + db);
  ASSERT_EQ(sorted.code, 0);
  double last = 0;
  const json by_makespan = json::parse(sorted.out);
  ASSERT_EQ(by_makespan["runs"].size(), 3u);
  for (const json& r : by_makespan["runs"]) {
    EXPECT_GE(r["figures"]["makespan_ns"].get<double>(), last);
    last = r["figures"]["makespan_ns"].get<double>();
  }
  EXPECT_EQ(ids("--sort efficiency --limit 1").size(), 1u);
  ExpectOneLine(Braid("report --sort fastest --db " + db), 2, "--sort fastest");
  ExpectOneLine(Braid("report --op gemm --db " + db), 2, "--op gemm");
  ExpectOneLine(Braid("report --limit -1 --db " + db), 2, "--limit");
  ExpectOneLine(Braid("report --session 7 --db " + db), 2, "7");
}

TEST(CliReport, SessionFilterListsThatTuningSessionsTrials) {
  const std::string db = TempPath("report_session.db");
  const std::string out = TempPath("report_session.toml");
  std::filesystem::remove(db);
  std::filesystem::remove(out);
  const Outcome tune =
      Braid("tune --op ag_gemm --m 1024 --n 1024 --k 1024 --tp 2 --json --no-progress --db " + db + " --out " + out);
  ASSERT_EQ(tune.code, 0) << tune.err;
  ASSERT_EQ(Braid(kSim + "--algo serial --db " + db).code, 0);  // not a trial
  const Outcome o = Braid("report --json --session 1 --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(json::parse(o.out)["runs"].size(), json::parse(tune.out)["trials"].get<size_t>());
}

TEST(CliReport, CompareShowsTwoRunsSideBySideWithDifferences) {
  const std::string db = ThreeRuns("report_compare.db");
  const Outcome o = Braid("report --json --compare 1 3 --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  const json j = json::parse(o.out);
  EXPECT_EQ(j["runs"], json::array({1, 3}));
  const json a = json::parse(Braid("report --json --run 1 --db " + db).out)["metrics"];
  const json b = json::parse(Braid("report --json --run 3 --db " + db).out)["metrics"];
  for (const char* m : {"makespan_ns", "exposed_comm_ns", "tail_ns", "overlap_ratio", "efficiency"}) {
    const json& row = j["metrics"][m];
    EXPECT_DOUBLE_EQ(row["a"].get<double>(), a[m]["p50"].get<double>()) << m;
    EXPECT_DOUBLE_EQ(row["b"].get<double>(), b[m]["p50"].get<double>()) << m;
    EXPECT_DOUBLE_EQ(row["diff"].get<double>(), b[m]["p50"].get<double>() - a[m]["p50"].get<double>()) << m;
  }
  const Outcome table = Braid("report --compare 1 3 --db " + db);
  ASSERT_EQ(table.code, 0);
  EXPECT_THAT(table.out, HasSubstr("A  run 1: sim, ring chunks=2"));
  EXPECT_THAT(table.out, HasSubstr("B  run 3: sim, serial"));
  EXPECT_THAT(table.out, HasSubstr("B / A"));
  ExpectOneLine(Braid("report --compare 1 99 --db " + db), 2, "99");
  ExpectOneLine(Braid("report --compare 0 1 --db " + db), 2, "--compare 0");
}

// Two training blocks (bulk vs ring): compared pass by pass as well, each
// pass's time the union of its steps' spans on the worst rank.
TEST(CliReport, CompareOfTrainingRunsGoesPassByPass) {
  const std::string db = TempPath("report_compare_train.db");
  std::filesystem::remove(db);
  const std::string train = "run --model llama3-8b --seq 4096 --tp 4 --phase train --iters 3 --warmup 0 --db " + db;
  ASSERT_EQ(Braid(train + " --algo bulk").code, 0);
  ASSERT_EQ(Braid(train + " --algo ring").code, 0);
  ASSERT_EQ(Braid(kSim + "--algo serial --db " + db).code, 0);  // one op: no passes
  const Outcome o = Braid("report --json --compare 1 2 --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  const json j = json::parse(o.out);
  const double makespan = j["metrics"]["makespan_ns"]["a"].get<double>();
  for (const char* pass : {"fprop_busy_ns", "dgrad_busy_ns", "wgrad_busy_ns"}) {
    ASSERT_TRUE(j["metrics"].contains(pass)) << pass;
    EXPECT_GT(j["metrics"][pass]["a"].get<double>(), 0) << pass;
    EXPECT_LT(j["metrics"][pass]["a"].get<double>(), makespan) << pass;
    EXPECT_GT(j["metrics"][pass]["b"].get<double>(), 0) << pass;
  }
  const Outcome table = Braid("report --compare 1 2 --db " + db);
  EXPECT_THAT(table.out, HasSubstr("dgrad_busy"));
  const json mixed = json::parse(Braid("report --json --compare 1 3 --db " + db).out);
  EXPECT_FALSE(mixed["metrics"].contains("dgrad_busy_ns"));
}

TEST(CliReport, MissingOrNegativeRunIdsAreUsageErrors) {
  const std::string db = ThreeRuns("report_ids.db");
  ExpectOneLine(Braid("report --run -1 --db " + db), 2, "--run -1");
  ExpectOneLine(Braid("report --run 0 --db " + db), 2, "--run 0");
  ExpectOneLine(Braid("report --run 42 --db " + db), 2, "42");
}

TEST(CliVersion, PrintsTheVersionAndGitRevisionThatRunsRecord) {
  const Outcome o = Braid("--version");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("braid 0."));
  EXPECT_THAT(o.out, HasSubstr("(git "));
  const std::string db = TempPath("version.db");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid(kSim + "--algo serial --db " + db).code, 0);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT braid_version, git_revision FROM runs", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  const std::string version = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  const std::string revision = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
  sqlite3_finalize(st);
  sqlite3_close(h);
  EXPECT_THAT(o.out, HasSubstr("braid " + version + " (git " + revision + ")"));
}

// Every field of a stored config JSON of the wrong type, missing or null;
// configs that are not objects; notes fields of the wrong type.
TEST(CliDamagedStore, EveryReaderRefusesDamagedRunJsonWithOneLineAndTouchesNothing) {
  const std::vector<std::string> configs = {
      R"({"algorithm":5,"chunks":"x"})",
      R"({"chunks":2})",
      R"({"algorithm":null})",
      R"({"algorithm":"ring","chunks":null})",
      R"({"algorithm":"ring","chunks":1.5})",
      R"({"algorithm":"ring","chunks":99999999999})",
      R"({"algorithm":"ring","splits":"1,2"})",
      R"({"algorithm":"ring","splits":[1,"x"]})",
      R"({"algorithm":"ring","splits":null})",
      R"({"algorithm":"ring","streams":"2"})",
      R"({"algorithm":"ring","streams":null})",
      R"({"algorithm":"ring","comm_sms":[]})",
      R"({"algorithm":"ring","comm_engine":3})",
      R"({"algorithm":"ring","comm_engine":null})",
      R"({"algorithm":"ring","comm_priority":true})",
      R"({"algorithm":"warp"})",
      R"([])",
      R"(null)",
      R"("ring")",
      R"(not json)",
  };
  const std::vector<std::string> notes = {
      R"({"compute_dtype":5})",
      R"({"notes":"one"})",
      R"({"notes":[1]})",
      R"({"verify":{"ok":"yes"}})",
      R"({"link_emulation":3})",
      R"({"lower_bound":{"compute_alone_ns":"x"}})",
      R"({"layer":{"describe":1}})",
      R"({"hta":[{"rank":"0"}]})",
      R"([1,2])",
      R"(garbage)",
  };
  const std::string pristine = ThreeRuns("damaged_src.db");
  int cases = 0;
  auto check = [&](const std::string& column, const std::string& value) {
    const std::string db = TempPath("damaged_" + std::to_string(cases++) + ".db");
    std::filesystem::copy_file(pristine, db, std::filesystem::copy_options::overwrite_existing);
    std::string quoted;
    for (char c : value) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    Exec(db, "PRAGMA journal_mode=DELETE; UPDATE runs SET " + column + " = '" + quoted + "' WHERE id = 2;");
    const std::string before = ReadAll(db);
    const std::string out = TempPath("damaged_export.json");
    std::filesystem::remove(out);
    for (const std::string& cmd : {"report --db " + db, "report --json --db " + db, "report --run 2 --db " + db,
                                   "report --json --run 2 --db " + db, "report --compare 1 2 --db " + db,
                                   "export --run 2 -o " + out + " --db " + db}) {
      SCOPED_TRACE(column + " = " + value + ": " + cmd);
      ExpectOneLine(Braid(cmd), 2, "damaged store: run 2 has");
    }
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_TRUE(ReadAll(db) == before) << "a reader never writes the store";
    // The undamaged runs still read.
    EXPECT_EQ(Braid("report --run 1 --db " + db).code, 0);
  };
  for (const std::string& c : configs) check("config_json", c);
  for (const std::string& n : notes) check("notes_json", n);
  EXPECT_EQ(cases, int(configs.size() + notes.size()));
}

TEST(CliDamagedStore, TuneResumeRefusesADamagedTrialConfigAndLeavesTheSession) {
  const std::string db = TempPath("damaged_tune.db");
  const std::string out = TempPath("damaged_tune.toml");
  std::filesystem::remove(db);
  std::filesystem::remove(out);
  const std::string op =
      "tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2 --no-progress --db " + db + " --out " + out;
  ASSERT_EQ(Braid(op).code, 0);
  for (const char* bad : {R"({"algorithm":5})", R"({"algorithm":"ring","chunks":"x","warmup":0})",
                          R"({"algorithm":"ring","warmup":null})", R"(null)"}) {
    std::string quoted;
    for (char c : std::string(bad)) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    Exec(db,
         "UPDATE tuning_sessions SET status = 'interrupted';"
         "UPDATE trials SET config_json = '" +
             quoted + "' WHERE id = 2;");
    const std::string before = Rows(db);
    const Outcome o = Braid(op + " --resume");
    SCOPED_TRACE(bad);
    ExpectOneLine(o, 2, "damaged store: trial 2 of session 1");
    EXPECT_EQ(Rows(db), before) << "the damaged session is left as it was";
  }
}

// Damage to the store's structure (a dropped table or index) and to what
// its rows refer to (a missing string, an event count or op that cannot
// be): every reader gives one line naming the store and what is wrong,
// exit 2, never SQL text, and the file's bytes stay as they were.
TEST(CliDamagedStore, StructuralDamageIsOneLineFromEveryReaderAndTouchesNothing) {
  const std::string pristine = ThreeRuns("structural_src.db");
  const std::string presets = TempPath("structural_src.toml");
  std::filesystem::remove(presets);
  const std::string tune = "tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2 --no-progress --out " + presets;
  ASSERT_EQ(Braid(tune + " --db " + pristine).code, 0);
  Exec(pristine, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;");
  struct Damage {
    std::string sql, message;
    bool every_reader;  // structure: the open refuses it, whatever the command
  };
  const std::vector<Damage> damages = {
      {"DROP TABLE events;", "has no table 'events'", true},
      {"DROP TABLE strings;", "has no table 'strings'", true},
      {"DROP TABLE trials;", "has no table 'trials'", true},
      {"DROP INDEX trials_by_key;", "has no index 'trials_by_key'", true},
      {"DELETE FROM strings WHERE id = (SELECT name_id FROM events WHERE run = 1 LIMIT 1);", "damaged store: run 1 of",
       false},
      {"UPDATE runs SET event_count = 1099511627776 WHERE id = 1;", "has event_count 1099511627776 but", false},
      {"UPDATE runs SET op = 'warp' WHERE id = 1;", "has an unknown op or dtype ('warp'", false},
  };
  int n = 0;
  for (const Damage& d : damages) {
    const std::string db = TempPath("structural_" + std::to_string(n++) + ".db");
    std::filesystem::copy_file(pristine, db, std::filesystem::copy_options::overwrite_existing);
    Exec(db, d.sql);
    const std::string before = ReadAll(db);
    const std::string out = TempPath("structural_out.json");
    std::filesystem::remove(out);
    std::vector<std::string> readers = {"export --run 1 -o " + out + " --db " + db};
    if (d.every_reader) {
      readers.insert(readers.end(), {"report --db " + db, "report --json --db " + db, "report --run 2 --db " + db,
                                     tune + " --resume --session 1 --db " + db, tune + " --db " + db});
    } else if (d.message.find("op or dtype") != std::string::npos) {
      readers.insert(readers.end(), {"report --db " + db, "report --run 1 --db " + db});
    }
    for (const std::string& cmd : readers) {
      SCOPED_TRACE(d.sql + " then: " + cmd);
      const Outcome o = Braid(cmd);
      ExpectOneLine(o, 2, d.message);
      EXPECT_THAT(o.err, HasSubstr("damaged store"));
      EXPECT_THAT(o.err, HasSubstr(db));
      EXPECT_THAT(o.err, ::testing::Not(HasSubstr("SELECT")));
    }
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_TRUE(ReadAll(db) == before) << d.sql << ": a refused command never writes the store";
  }
  std::filesystem::remove(presets);
}

TEST(CliDamagedStore, ResumeOnAMissingStoreCreatesNothing) {
  const std::string db = TempPath("resume_missing.db");
  const std::string out = TempPath("resume_missing.toml");
  std::filesystem::remove(db);
  const Outcome o = Braid("tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2 --resume --db " + db + " --out " + out);
  ExpectOneLine(o, 2, "no store");
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
