// Store::Open: check the path, recognise the file, set the connection up,
// upgrade the schema. Nothing is written to a file until it is known to be
// a Braid store (or a new, empty one).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "braid/store.h"
#include "schema.h"
#include "statement.h"

namespace braid {
namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = 5000;

// Fails early, with a message naming the path, where SQLite would only say
// "unable to open database file".
Status CheckPath(const std::string& path, bool read_only, bool* exists) {
  if (path.empty()) return Status::Invalid("store path is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) return Status::Invalid(path + " is a directory, not a store file");
  *exists = fs::exists(st);
  // SQLite would write its pages (and -wal, -shm beside) into a device or FIFO.
  if (*exists && !fs::is_regular_file(st))
    return Status::Invalid(path + " is a device, FIFO or socket, not a store file");
  if (*exists) {
    if (access(path.c_str(), read_only ? R_OK : R_OK | W_OK) != 0) {
      return Status::Invalid("cannot open store " + path + ": permission denied");
    }
    return Status::Ok();
  }
  if (read_only) return Status::NotFound("no store at " + path);
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    return Status::Invalid("cannot create store " + path + ": directory " + dir.string() + " does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("cannot create store " + path + ": directory " + dir.string() + " is not writable");
  }
  return Status::Ok();
}

Status CheckIdentity(const db::FileIdentity& id, const std::string& path, bool read_only) {
  switch (id.kind) {
    case db::FileKind::kForeign:
      return Status::Invalid(path + " is not a Braid store (an SQLite database of another application)");
    case db::FileKind::kEmpty:
      if (read_only) return Status::Invalid(path + " is not a Braid store (an empty database)");
      return Status::Ok();
    case db::FileKind::kBraid:
      if (id.version > kStoreSchemaVersion) {
        return db::NewerSchemaError(path, id.version, kStoreSchemaVersion);
      }
      if (read_only && id.version < kStoreSchemaVersion) {
        return Status::Invalid(path + " has schema " + std::to_string(id.version) + " (this build uses " +
                               std::to_string(kStoreSchemaVersion) + "); open it read-write once to upgrade it");
      }
      return Status::Ok();
  }
  return Status::Internal("unknown file kind");
}

// Sets WAL mode, which needs a moment alone with the file: another process
// creating or opening the same store may hold it, so SQLITE_BUSY is retried
// within the busy timeout. WAL is persistent, so an existing store is
// already in it and nothing is written.
Status EnableWal(sqlite3* db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(db::Statement wal, db::Statement::Prepare(db, "PRAGMA journal_mode = WAL"));
    Result<bool> row = wal.Step();
    const int rc = sqlite3_errcode(db) & 0xff;
    if (row.ok()) {
      if (!*row || wal.Text(0) != "wal") {
        return Status::Unavailable("the file system does not support SQLite's WAL mode");
      }
      return Status::Ok();
    }
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline) {
      return row.status();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Connection settings; only run on a file known to be ours (or empty).
Status Configure(sqlite3* db, bool read_only, bool new_file) {
  BRAID_RETURN_IF_ERROR(db::Exec(db, "PRAGMA foreign_keys = ON"));
  if (read_only) return Status::Ok();
  // 16 KiB pages: a 1M-event run is ~3,000 pages instead of ~12,000, so
  // fewer writes and shallower trees. Fixed when the file is created (a
  // no-op when another process created it first).
  if (new_file) BRAID_RETURN_IF_ERROR(db::Exec(db, "PRAGMA page_size = 16384"));
  // A new, empty file is turned to WAL and given its schema without
  // fsyncs: six of them (the rollback journal that writes WAL's header,
  // the directory, the WAL's own header) took 1 to 5 ms of a 35 ms import.
  // A power cut meanwhile can only spoil a file that holds nothing yet; the
  // first checkpoint syncs all of it, and Open puts NORMAL back before
  // anything else is written.
  if (new_file) BRAID_RETURN_IF_ERROR(db::Exec(db, "PRAGMA synchronous = OFF"));
  // WAL: readers never block the writer and see only committed runs.
  BRAID_RETURN_IF_ERROR(EnableWal(db));
  return db::Exec(db,
                  // 64 MiB: a run up to ~1.3M events is built in memory
                  // and goes to the WAL once, at commit; larger runs spill.
                  "PRAGMA cache_size = -65536;"  // KiB
                  "PRAGMA journal_size_limit = 67108864;");
}

// synchronous=NORMAL: a commit survives a killed process (the OS has it);
// only a power cut may lose the last commits, never corrupt the file.
Status SyncNormally(sqlite3* db) { return db::Exec(db, "PRAGMA synchronous = NORMAL"); }

// What the file is, read in one read transaction: a creator in another
// process commits its whole schema at once, so the identity, version and
// table count are never seen half-written (which would look like another
// application's database).
// `failed_rc` gets the primary SQLite code of a failure, before the
// rollback resets it.
Result<db::FileIdentity> IdentifyConsistently(sqlite3* db, int* failed_rc) {
  BRAID_RETURN_IF_ERROR(db::Exec(db, "BEGIN"));
  Result<db::FileIdentity> id = db::Identify(db);
  *failed_rc = id.ok() ? SQLITE_OK : sqlite3_errcode(db) & 0xff;
  const Status end = db::Exec(db, id.ok() ? "COMMIT" : "ROLLBACK");
  if (!id.ok()) return id;
  if (!end.ok()) return end;
  return id;
}

}  // namespace

Store::Store(sqlite3* db, std::string path, bool read_only) : db_(db), path_(std::move(path)), read_only_(read_only) {}

Store::~Store() { sqlite3_close_v2(db_); }

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, bool read_only) {
  if (sqlite3_libversion_number() < 3037000) {  // STRICT tables
    return Status::Unavailable(std::string("the store needs SQLite 3.37 or newer (found ") + sqlite3_libversion() +
                               ")");
  }
  bool exists = false;
  BRAID_RETURN_IF_ERROR(CheckPath(path, read_only, &exists));

  int flags = SQLITE_OPEN_NOMUTEX;  // one thread per connection (see store.h)
  flags |= read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::unique_ptr<Store> store(new Store(raw, path, read_only));  // closes `raw` on every path
  const std::string context = "cannot open store " + path;
  BRAID_RETURN_IF_ERROR(db::WithContext(BRAID_SQLITE(raw, rc), context));
  BRAID_RETURN_IF_ERROR(db::WithContext(BRAID_SQLITE(raw, sqlite3_extended_result_codes(raw, 1)), context));
  BRAID_RETURN_IF_ERROR(db::WithContext(BRAID_SQLITE(raw, sqlite3_busy_timeout(raw, kBusyTimeoutMs)), context));

  int identify_rc = SQLITE_OK;
  Result<db::FileIdentity> id = IdentifyConsistently(raw, &identify_rc);
  if (!id.ok()) {
    if (identify_rc == SQLITE_NOTADB) return Status::Invalid(path + " is not a Braid store (not an SQLite database)");
    if (identify_rc == SQLITE_CORRUPT) return Status::Invalid(path + ": " + id.status().message());
    return db::WithContext(id.status(), context);
  }
  BRAID_RETURN_IF_ERROR(CheckIdentity(*id, path, read_only));
  // Whole before anything is written to it (even the journal mode): a
  // damaged store is refused as it is.
  if (id->kind == db::FileKind::kBraid) {
    BRAID_RETURN_IF_ERROR(db::CheckSchema(raw, path, std::min(id->version, kStoreSchemaVersion)));
  }
  BRAID_RETURN_IF_ERROR(db::WithContext(Configure(raw, read_only, id->kind == db::FileKind::kEmpty), context));
  if (!read_only && id->version < kStoreSchemaVersion) {
    BRAID_RETURN_IF_ERROR(db::Migrate(raw, path, db::Migrations()));
  }
  if (!read_only) BRAID_RETURN_IF_ERROR(db::WithContext(SyncNormally(raw), context));
  return store;
}

Result<int> Store::SyncLevel() const {
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, "PRAGMA synchronous"));
  BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::Internal("PRAGMA synchronous gave no row");
  return int(st.Int(0));
}

Status Store::CheckWritable() const {
  if (read_only_) return Status::Invalid("store " + path_ + " was opened read-only");
  return Status::Ok();
}

}  // namespace braid
