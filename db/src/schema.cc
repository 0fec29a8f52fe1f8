#include "schema.h"

#include <map>
#include <memory>
#include <set>
#include <string>

#include "braid/store.h"
#include "braid/stored_text.h"
#include "statement.h"

namespace braid::db {
namespace {

#define BRAID_NOW "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"

// v1: runs and what they contain. Events are WITHOUT ROWID, keyed by
// (run, rank, lane, start_ns, seq): the key is the read order, so the table
// is its own index and a sorted run appends to the B-tree. seq numbers a
// run's events in that order and breaks ties.
constexpr const char* kV1 = R"sql(
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT    NOT NULL DEFAULT )sql" BRAID_NOW R"sql(,
  status        TEXT    NOT NULL CHECK (status IN ('writing', 'complete')),
  source        TEXT    NOT NULL CHECK (source IN ('measured', 'imported')),
  backend       TEXT    NOT NULL,
  topology      TEXT    NOT NULL,
  op            TEXT    NOT NULL,
  m             INTEGER NOT NULL,
  n             INTEGER NOT NULL,
  k             INTEGER NOT NULL,
  dtype         TEXT    NOT NULL,
  tp            INTEGER NOT NULL,
  config_json   TEXT    NOT NULL,
  host          TEXT    NOT NULL,
  braid_version TEXT    NOT NULL,
  git_revision  TEXT    NOT NULL,
  iterations    INTEGER NOT NULL,
  warmup        INTEGER NOT NULL,
  notes_json    TEXT    NOT NULL,
  event_count   INTEGER NOT NULL
) STRICT;

CREATE TABLE strings (
  id   INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE lanes (
  run  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  lane INTEGER NOT NULL,
  name TEXT    NOT NULL,
  kind TEXT    NOT NULL,
  PRIMARY KEY (run, rank, lane)
) STRICT, WITHOUT ROWID;

CREATE TABLE events (
  run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank        INTEGER NOT NULL,
  lane        INTEGER NOT NULL,
  start_ns    INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  end_ns      INTEGER NOT NULL,
  iteration   INTEGER NOT NULL,
  kind        INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 5),
  name_id     INTEGER NOT NULL REFERENCES strings(id),
  bytes       INTEGER NOT NULL,
  flops       REAL    NOT NULL,
  chunk       INTEGER NOT NULL,
  step        INTEGER NOT NULL,
  peer        INTEGER NOT NULL,
  correlation INTEGER NOT NULL,
  PRIMARY KEY (run, rank, lane, start_ns, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE metrics (
  run       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  rank      INTEGER NOT NULL,
  name_id   INTEGER NOT NULL REFERENCES strings(id),
  value     REAL    NOT NULL,
  PRIMARY KEY (run, iteration, rank, name_id)
) STRICT, WITHOUT ROWID;
)sql";

// v2: the tuner's sessions and trials.
constexpr const char* kV2 = R"sql(
CREATE TABLE tuning_sessions (
  id           INTEGER PRIMARY KEY,
  created_at   TEXT    NOT NULL DEFAULT )sql" BRAID_NOW R"sql(,
  workload_key TEXT    NOT NULL,
  topology     TEXT    NOT NULL,
  backend      TEXT    NOT NULL,
  strategy     TEXT    NOT NULL,
  budget       INTEGER NOT NULL,
  status       TEXT    NOT NULL CHECK (status <> ''),
  options_json TEXT    NOT NULL
) STRICT;
CREATE INDEX tuning_sessions_by_key ON tuning_sessions (workload_key, topology, backend);

CREATE TABLE trials (
  id          INTEGER PRIMARY KEY,
  session     INTEGER NOT NULL REFERENCES tuning_sessions(id) ON DELETE CASCADE,
  run         INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  config_json TEXT    NOT NULL,
  status      TEXT    NOT NULL CHECK (status <> ''),
  time_ns     INTEGER,
  created_at  TEXT    NOT NULL DEFAULT )sql" BRAID_NOW R"sql(
) STRICT;
CREATE INDEX trials_by_session ON trials (session, id);
CREATE INDEX trials_by_run ON trials (run);
)sql";

// v3: a trial's key (what was measured: op, config, stage) is unique within
// its session, so a resumed session can never measure one thing twice, and
// the trial keeps its iteration samples for the median and its interval.
constexpr const char* kV3 = R"sql(
ALTER TABLE trials ADD COLUMN trial_key TEXT;
ALTER TABLE trials ADD COLUMN samples_json TEXT NOT NULL DEFAULT '[]';
CREATE UNIQUE INDEX trials_by_key ON trials (session, trial_key);
)sql";

#undef BRAID_NOW

Result<int64_t> PragmaInt(sqlite3* db, const char* sql) {
  BRAID_ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db, sql));
  BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : int64_t{0};
}

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kSteps = {{1, kV1}, {2, kV2}, {3, kV3}};
  static_assert(kStoreSchemaVersion == 3, "add the migration step for the new schema version");
  return kSteps;
}

Result<FileIdentity> Identify(sqlite3* db) {
  BRAID_ASSIGN_OR_RETURN(int64_t app, PragmaInt(db, "PRAGMA application_id"));
  BRAID_ASSIGN_OR_RETURN(int64_t version, PragmaInt(db, "PRAGMA user_version"));
  BRAID_ASSIGN_OR_RETURN(int64_t objects, PragmaInt(db, "SELECT count(*) FROM sqlite_schema"));

  if (app == kApplicationId) return FileIdentity{FileKind::kBraid, int(version)};
  if (app == 0 && version == 0 && objects == 0) return FileIdentity{FileKind::kEmpty, 0};
  return FileIdentity{FileKind::kForeign, int(version)};
}

namespace {

// name -> its columns (tables) or nothing (indexes), of schema objects in `db`.
Result<std::map<std::string, std::set<std::string>>> SchemaObjects(sqlite3* db, const char* type) {
  std::map<std::string, std::set<std::string>> out;
  BRAID_ASSIGN_OR_RETURN(Statement st,
                         Statement::Prepare(db, std::string("SELECT name FROM sqlite_schema WHERE type = '") + type +
                                                    "' AND name NOT LIKE 'sqlite_%'"));
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.emplace(st.Text(0), std::set<std::string>{});
  }
  if (std::string(type) != "table") return out;
  for (auto& [name, columns] : out) {
    BRAID_ASSIGN_OR_RETURN(Statement info, Statement::Prepare(db, "SELECT name FROM pragma_table_info(?1)"));
    info.BindText(1, name);
    for (;;) {
      BRAID_ASSIGN_OR_RETURN(bool row, info.Step());
      if (!row) break;
      columns.insert(info.Text(0));
    }
  }
  return out;
}

}  // namespace

Status CheckSchema(sqlite3* db, const std::string& path, int version) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> memory(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) return Status::Internal("cannot open an in-memory database to check " + path);
  for (const Migration& step : Migrations()) {
    if (step.version <= version) BRAID_RETURN_IF_ERROR(Exec(memory.get(), step.sql));
  }
  const std::string damaged = DamagedStorePrefix(path);
  for (const char* type : {"table", "index"}) {
    BRAID_ASSIGN_OR_RETURN(auto want, SchemaObjects(memory.get(), type));
    Result<std::map<std::string, std::set<std::string>>> have = SchemaObjects(db, type);
    if (!have.ok()) return Status::Invalid(damaged + ": its schema cannot be read (" + have.status().message() + ")");
    for (const auto& [name, columns] : want) {
      const auto it = have->find(name);
      if (it == have->end()) return DamagedStore(path, std::string("no ") + type + " '" + name + "'");
      for (const std::string& column : columns) {
        if (!it->second.contains(column)) {
          return Status::Invalid(damaged + ": table '" + name + "' has no column '" + column + "'");
        }
      }
    }
  }
  return Status::Ok();
}

Status NewerSchemaError(const std::string& path, int version, int known) {
  return Status::Invalid(path + " was written by a newer Braid (schema " + std::to_string(version) +
                         ", this build knows " + std::to_string(known) + ")");
}

Status Migrate(sqlite3* db, const std::string& path, const std::vector<Migration>& steps) {
  const int latest = steps.empty() ? 0 : steps.back().version;
  Transaction tx(db);
  BRAID_RETURN_IF_ERROR(tx.Begin());
  // Read inside the write transaction: another process may have upgraded
  // the file since we looked.
  BRAID_ASSIGN_OR_RETURN(int64_t current, PragmaInt(db, "PRAGMA user_version"));
  if (current > latest) return NewerSchemaError(path, int(current), latest);
  if (current == latest) return Status::Ok();

  for (const Migration& step : steps) {
    if (step.version <= current) continue;
    Status s = Exec(db, step.sql);
    if (!s.ok()) {
      return WithContext(s, "upgrading " + path + " to schema " + std::to_string(step.version));
    }
  }
  const std::string set_header =
      "PRAGMA application_id = " + std::to_string(kApplicationId) + "; PRAGMA user_version = " + std::to_string(latest);
  BRAID_RETURN_IF_ERROR(Exec(db, set_header.c_str()));
  return tx.Commit();
}

}  // namespace braid::db
