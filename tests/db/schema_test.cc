#include "schema.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "braid/store.h"
#include "store_test_util.h"

namespace braid {
namespace {

using testing::MakeEvents;
using testing::RawDb;
using testing::ReadBytes;
using testing::SampleMeta;
using testing::TempDir;
using testing::WriteBytes;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Creates a store, writes one run and closes it (the WAL is checkpointed
// into the main file on close).
int64_t MakeStoreWithRun(const std::string& path) {
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return 0;
  Result<int64_t> id = (*store)->WriteRun(SampleMeta(), {}, MakeEvents(2, 2, 2, 5), {});
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : 0;
}

TEST(Schema, NewStoreIsCurrentWalAndOurs) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  ASSERT_TRUE(Store::Open(path).ok());
  RawDb raw(path);
  EXPECT_EQ(raw.Int("PRAGMA user_version"), kStoreSchemaVersion);
  EXPECT_EQ(raw.Int("PRAGMA application_id"), db::kApplicationId);
  EXPECT_EQ(raw.Text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.Int("PRAGMA page_size"), 16384);
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  ASSERT_EQ(db::Migrations().size(), size_t(kStoreSchemaVersion));
  for (size_t i = 0; i < db::Migrations().size(); ++i) EXPECT_EQ(db::Migrations()[i].version, int(i) + 1);
}

// A new store is made without fsyncs (synchronous off, nothing in it to
// lose); every writable store is back at NORMAL before Open returns.
TEST(Schema, EveryWritableStoreSyncsNormallyOnceOpen) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  Result<std::unique_ptr<Store>> fresh = Store::Open(path);
  ASSERT_TRUE(fresh.ok()) << fresh.status().message();
  EXPECT_EQ(*(*fresh)->SyncLevel(), 1);
  ASSERT_TRUE((*fresh)->WriteRun(SampleMeta(), {}, MakeEvents(1, 1, 1, 3), {}).ok());
  fresh->reset();
  Result<std::unique_ptr<Store>> again = Store::Open(path);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*(*again)->SyncLevel(), 1);
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), 3);
}

TEST(Schema, EmptyFileBecomesAStore) {
  TempDir dir;
  const std::string path = dir.Path("empty.db");
  WriteBytes(path, "");
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_TRUE((*store)->WriteRun(SampleMeta(), {}, {}, {}).ok());
}

TEST(Schema, Version1StoreIsUpgradedAndKeepsItsRuns) {
  TempDir dir;
  const std::string path = dir.Path("v1.db");
  {  // A store as the first release wrote it: the v1 DDL, user_version 1.
    RawDb raw(path);
    ASSERT_EQ(raw.Exec(std::string("BEGIN;") + db::Migrations()[0].sql + "PRAGMA application_id = " +
                       std::to_string(db::kApplicationId) + "; PRAGMA user_version = 1; COMMIT;"),
              "");
    ASSERT_EQ(raw.Exec("INSERT INTO runs (id, status, source, backend, topology, op, m, n, k, dtype, tp,"
                       " config_json, host, braid_version, git_revision, iterations, warmup, notes_json,"
                       " event_count) VALUES (7, 'complete', 'imported', 'kineto', 'h100-sxm', 'ag_gemm',"
                       " 1024, 2048, 512, 'fp16', 4, '{}', 'old', '0.0.1', 'deadbee', 3, 1, '{}', 1);"
                       "INSERT INTO strings (id, text) VALUES (1, 'gemm');"
                       "INSERT INTO events VALUES (7, 0, 0, 100, 0, 250, 0, 0, 1, 0, 1e9, -1, -1, -1, -1);"),
              "");
    ASSERT_EQ(raw.Exec("SELECT * FROM tuning_sessions"), "no such table: tuning_sessions");
  }
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  {
    RawDb raw(path);
    EXPECT_EQ(raw.Int("PRAGMA user_version"), kStoreSchemaVersion);
    EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  }
  Result<StoredRun> run = (*store)->GetRun(7);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->meta.backend, "kineto");
  EXPECT_EQ(run->meta.workload.op, Op::kAgGemm);
  EXPECT_EQ(run->meta.workload.dtype, DType::kFp16);
  Result<std::vector<Event>> events = (*store)->LoadEvents(7);
  ASSERT_TRUE(events.ok()) << events.status().message();
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].name, "gemm");
  EXPECT_EQ((*events)[0].end_ns, 250);
  // The v2 tables work on the upgraded file.
  Result<int64_t> session = (*store)->CreateSession({"k", "h100-sxm", "sim", "random", 10, ""});
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_TRUE((*store)->AddTrial(*session, {7, "{}", "ok", 123, "", ""}).ok());
}

TEST(Schema, MigrationStepsApplyInOrderAndAStoreTooNewIsRefused) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  const int64_t id = MakeStoreWithRun(path);
  std::vector<db::Migration> steps = db::Migrations();
  steps.push_back({kStoreSchemaVersion + 1,
                   "CREATE TABLE run_tags (run INTEGER NOT NULL REFERENCES runs(id), tag TEXT NOT NULL) STRICT;"
                   "INSERT INTO run_tags SELECT id, 'migrated' FROM runs;"});
  {
    RawDb raw(path);
    ASSERT_TRUE(db::Migrate(raw.get(), path, steps).ok());
    EXPECT_EQ(raw.Int("PRAGMA user_version"), kStoreSchemaVersion + 1);
    EXPECT_EQ(raw.Int("SELECT run FROM run_tags WHERE tag = 'migrated'"), id);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), 40);
    // Migrating again is a no-op.
    ASSERT_TRUE(db::Migrate(raw.get(), path, steps).ok());
    EXPECT_EQ(raw.Int("SELECT count(*) FROM run_tags"), 1);
  }
  // This build knows one version less than the file now has.
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store.status().message(), path + " was written by a newer Braid (schema " +
                                          std::to_string(kStoreSchemaVersion + 1) + ", this build knows " +
                                          std::to_string(kStoreSchemaVersion) + ")");
}

TEST(Schema, FailingMigrationLeavesTheStoreAsItWas) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  MakeStoreWithRun(path);
  std::vector<db::Migration> steps = db::Migrations();
  steps.push_back({kStoreSchemaVersion + 1, "CREATE TABLE extra (x INTEGER) STRICT;"});
  steps.push_back({kStoreSchemaVersion + 2, "CREATE TABLE runs (x INTEGER);"});  // already exists
  RawDb raw(path);
  Status s = db::Migrate(raw.get(), path, steps);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), "upgrading " + path + " to schema " + std::to_string(kStoreSchemaVersion + 2)))
      << s.message();
  EXPECT_TRUE(Contains(s.message(), "table runs already exists")) << s.message();
  EXPECT_EQ(raw.Int("PRAGMA user_version"), kStoreSchemaVersion);
  EXPECT_EQ(raw.Exec("SELECT * FROM extra"), "no such table: extra");  // step 1 rolled back too
}

TEST(Schema, NewerStoreIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  MakeStoreWithRun(path);
  {
    RawDb raw(path);
    ASSERT_EQ(raw.Exec("PRAGMA journal_mode = DELETE; PRAGMA user_version = 99"), "");
  }
  const std::string before = ReadBytes(path);
  for (bool read_only : {false, true}) {
    Result<std::unique_ptr<Store>> store = Store::Open(path, read_only);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().message(), path + " was written by a newer Braid (schema 99, this build knows " +
                                            std::to_string(kStoreSchemaVersion) + ")");
  }
  EXPECT_EQ(ReadBytes(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST(Schema, ForeignSqliteFileIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.Path("other.sqlite");
  {
    RawDb raw(path);
    ASSERT_EQ(raw.Exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, title TEXT);"
                       "INSERT INTO photos (title) VALUES ('cat'), ('dog');"),
              "");
  }
  const std::string before = ReadBytes(path);
  for (bool read_only : {false, true}) {
    Result<std::unique_ptr<Store>> store = Store::Open(path, read_only);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store.status().message(), path + " is not a Braid store (an SQLite database of another application)");
  }
  EXPECT_EQ(ReadBytes(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

TEST(Schema, NonSqliteFileIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.Path("notes.txt");
  std::string junk;
  for (int i = 0; i < 200; ++i) junk += "this is not a database, line " + std::to_string(i) + "\n";
  WriteBytes(path, junk);
  for (bool read_only : {false, true}) {
    Result<std::unique_ptr<Store>> store = Store::Open(path, read_only);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(store.status().message(), path + " is not a Braid store (not an SQLite database"))
        << store.status().message();
  }
  EXPECT_EQ(ReadBytes(path), junk);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.dir()), {}), 1);
}

TEST(Schema, BadPathsAreInvalidAndNameThePath) {
  TempDir dir;
  const std::string missing_dir = dir.Path("no/such/dir/runs.db");
  Result<std::unique_ptr<Store>> s = Store::Open(missing_dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.status().message(), missing_dir)) << s.status().message();
  EXPECT_TRUE(Contains(s.status().message(), "does not exist")) << s.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir.Path("no")));

  s = Store::Open(dir.dir().string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), dir.dir().string() + " is a directory, not a store file");

  s = Store::Open("");
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);

  // A directory no one may create files in, even root.
  s = Store::Open("/proc/braid_runs.db");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.status().message(), "/proc/braid_runs.db")) << s.status().message();
}

TEST(Schema, UnwritableDirectoryIsInvalid) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere; /proc covers this in BadPathsAreInvalidAndNameThePath";
  TempDir dir;
  const std::string locked = dir.Path("locked");
  std::filesystem::create_directory(locked);
  ASSERT_EQ(chmod(locked.c_str(), 0500), 0);
  Result<std::unique_ptr<Store>> s = Store::Open(locked + "/runs.db");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.status().message(), locked + "/runs.db")) << s.status().message();
  EXPECT_TRUE(Contains(s.status().message(), "not writable")) << s.status().message();
}

TEST(Schema, MissingFileOpenedReadOnlyIsNotFoundAndNotCreated) {
  TempDir dir;
  const std::string path = dir.Path("absent.db");
  Result<std::unique_ptr<Store>> s = Store::Open(path, /*read_only=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s.status().message(), "no store at " + path);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Schema, OlderStoreOpenedReadOnlyAsksForAnUpgrade) {
  TempDir dir;
  const std::string path = dir.Path("v1.db");
  {
    RawDb raw(path);
    ASSERT_EQ(raw.Exec(std::string("BEGIN;") + db::Migrations()[0].sql + "PRAGMA application_id = " +
                       std::to_string(db::kApplicationId) + "; PRAGMA user_version = 1; COMMIT;"),
              "");
  }
  const std::string before = ReadBytes(path);
  Result<std::unique_ptr<Store>> s = Store::Open(path, /*read_only=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.status().message(), "open it read-write once to upgrade it")) << s.status().message();
  EXPECT_EQ(ReadBytes(path), before);
}

// The foreign keys hold what they promise: deleting a run takes its lanes,
// events and metrics with it, and its trials stay, pointing nowhere.
TEST(Schema, DeletingARunCascadesToItsRowsAndUnlinksTrials) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  int64_t run = 0;
  {
    Result<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    Result<int64_t> id = (*store)->WriteRun(SampleMeta(), testing::MakeLanes(2, 2), MakeEvents(2, 2, 2, 5),
                                            {{0, 0, "makespan_ns", 1.0}});
    ASSERT_TRUE(id.ok());
    run = *id;
    Result<int64_t> session = (*store)->CreateSession({"k", "t", "sim", "random", 1, ""});
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*store)->AddTrial(*session, {run, "{}", "ok", 5, "", ""}).ok());
  }
  RawDb raw(path);
  ASSERT_EQ(raw.Exec("PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = " + std::to_string(run)), "");
  EXPECT_EQ(raw.Int("SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM lanes) +"
                    " (SELECT count(*) FROM metrics)"),
            0);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM trials WHERE run IS NULL"), 1);
  EXPECT_EQ(raw.Text("PRAGMA foreign_key_check"), "");
}

// Runs are written with the foreign-key checks off (run_writer.cc): every
// key they hold is still good, and the connection checks keys again after.
TEST(Schema, RunsWrittenWithoutKeyChecksHoldGoodKeysAndChecksComeBack) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  {
    Result<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE((*store)
                      ->WriteRun(SampleMeta(), testing::MakeLanes(2, 2), MakeEvents(2, 2, 2, 5 + i),
                                 {{0, 0, "makespan_ns", 1.0}})
                      .ok());
    }
    Result<int64_t> session = (*store)->CreateSession({"k", "t", "sim", "random", 1, ""});
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*store)
                    ->AddTrialWithRun(*session, {0, "{}", "ok", 5, "", ""}, SampleMeta(), testing::MakeLanes(2, 2),
                                      MakeEvents(2, 2, 2, 4), {{0, 0, "makespan_ns", 2.0}})
                    .ok());
    // Checked again: a trial naming a run that is not there is refused.
    EXPECT_FALSE((*store)->AddTrial(*session, {999, "{}", "ok", 5, "", ""}).ok());
  }
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA foreign_key_check"), "");
  EXPECT_EQ(raw.Int("SELECT count(*) FROM runs"), 4);
}

// LoadEvents' query walks the events primary key: no sort, no extra index.
TEST(Schema, EventsAreReadInKeyOrderWithoutASort) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  MakeStoreWithRun(path);
  RawDb raw(path);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw.get(),
                               "EXPLAIN QUERY PLAN SELECT rank, lane, start_ns FROM events WHERE run = 1"
                               " ORDER BY rank, lane, start_ns, seq",
                               -1, &st, nullptr),
            SQLITE_OK);
  std::string plan;
  while (sqlite3_step(st) == SQLITE_ROW) plan += reinterpret_cast<const char*>(sqlite3_column_text(st, 3));
  sqlite3_finalize(st);
  EXPECT_TRUE(Contains(plan, "PRIMARY KEY")) << plan;
  EXPECT_FALSE(Contains(plan, "TEMP B-TREE")) << plan;
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// A store whose pages were overwritten says "damaged store" and carries no
// source location (users see it; file:line is for us).
TEST(Schema, DamagedStoreIsNamedWithoutSourcePaths) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  {
    Result<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*store)->WriteRun(SampleMeta(), {}, MakeEvents(4, 4, 2, 50), {}).ok());
  }  // the last connection checkpoints the WAL into the file
  std::string bytes = testing::ReadBytes(path);
  ASSERT_GT(bytes.size(), size_t(4 * 16384));
  for (size_t i = 16384; i < bytes.size(); ++i) bytes[i] = char(0xA5 ^ (i * 7));  // every page but the header
  testing::WriteBytes(path, bytes);

  Status s;
  Result<std::unique_ptr<Store>> store = Store::Open(path, /*read_only=*/true);
  if (!store.ok()) {
    s = store.status();
  } else {
    Result<std::vector<StoredRun>> runs = (*store)->ListRuns();
    s = runs.ok() ? (*store)->LoadEvents(1).status() : runs.status();
  }
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("damaged store"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find(".cc"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("db/src"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace braid
