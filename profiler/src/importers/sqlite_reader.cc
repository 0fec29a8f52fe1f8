#include "sqlite_reader.h"

#include <algorithm>
#include <filesystem>

#include "braid/safe_read.h"
#include "file_bytes.h"

namespace braid::importers {

Status SqliteDb::Fail(std::string_view problem) const { return Status::Invalid(path_ + ": " + std::string(problem)); }

namespace {

// SQLite quotes schema text from the file in some messages: keep one line
// of bounded length.
std::string OneLine(std::string_view text) {
  constexpr size_t kMax = 300;
  std::string out;
  for (char c : text.substr(0, kMax)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  if (text.size() > kMax) out += "...";
  return out;
}

// VM steps between progress-handler calls, and steps allowed per byte of
// the file: an import reads each row once through indexed joins, about one
// step per byte of a real export; a join with no index over a crafted file
// needs rows x rows.
constexpr int kStepsPerCall = 10000;
constexpr int64_t kStepsPerByte = 64;
constexpr int64_t kMinSteps = int64_t(1) << 27;

int OnProgress(void* budget) {
  auto* left = static_cast<int64_t*>(budget);
  *left -= kStepsPerCall;
  return *left < 0 ? 1 : 0;  // non-zero interrupts the statement
}

}  // namespace

Status SqliteDb::CallFailed(std::string_view what, int rc) const {
  if (rc == SQLITE_NOTADB) return Fail("not a SQLite database");
  if (rc == SQLITE_INTERRUPT) {
    return Fail("its queries need more work than a file of its size can hold (" + std::string(what) + " was stopped)");
  }
  const char* msg = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
  const std::string kind = (rc & 0xff) == SQLITE_CORRUPT ? "corrupt SQLite database" : "SQLite error";
  return Fail(kind + " in " + std::string(what) + ": " + OneLine(msg));
}

Result<SqliteDb> SqliteDb::OpenReadOnly(const std::string& path, int64_t max_steps) {
  SqliteDb db;
  db.path_ = path;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return db.Fail("cannot open: No such file or directory");
  if (const std::string kind = NonRegularKind(path); !kind.empty()) {
    return db.Fail("is " + kind + ", not an Nsight Systems export");
  }
  // The safe reader's open checks what SQLite will open: a regular file
  // (a FIFO would block SQLite's open), within the traces' size cap.
  int64_t size = 0;
  {
    Result<UserFile> f = UserFile::Open(path, "Nsight Systems export", int64_t(kMaxTraceBytes));
    if (!f.ok()) return db.Fail(f.status().message());
    size = f->size();
  }
  if (size == 0) return db.Fail("empty file, not an Nsight Systems export");
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  db.db_.reset(raw);
  if (rc != SQLITE_OK) return db.Fail(std::string("cannot open: ") + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  db.budget_->left = max_steps > 0 ? max_steps : std::max(kMinSteps, size * kStepsPerByte);
  sqlite3_progress_handler(raw, kStepsPerCall, OnProgress, &db.budget_->left);
  // The first read tells whether this is SQLite at all.
  BRAID_ASSIGN_OR_RETURN(
      SqliteStmt tables,
      SqliteStmt::Prepare(db,
                          "SELECT name, type = 'table' AND COALESCE(sql, '') NOT LIKE 'CREATE VIRTUAL%' "
                          "FROM sqlite_master WHERE type IN ('table', 'view')"));
  while (tables.Next()) (tables.Int(1) != 0 ? db.tables_ : db.not_tables_).emplace(tables.Text(0));
  if (!tables.status().ok()) return tables.status();
  return db;
}

Status SqliteDb::CheckNotView(std::string_view name) const {
  if (!not_tables_.contains(std::string(name))) return Status::Ok();
  return Fail(std::string(name) + " is a view or a virtual table, not a table (an Nsight Systems export has tables)");
}

Result<std::set<std::string>> SqliteDb::Columns(std::string_view table) const {
  std::set<std::string> columns;
  if (!HasTable(table)) return columns;
  // `table` is one of our own constant names, never user input.
  BRAID_ASSIGN_OR_RETURN(SqliteStmt info,
                         SqliteStmt::Prepare(*this, "PRAGMA table_info(\"" + std::string(table) + "\")"));
  while (info.Next()) columns.emplace(info.Text(1));
  if (!info.status().ok()) return info.status();
  return columns;
}

Result<SqliteStmt> SqliteStmt::Prepare(const SqliteDb& db, const std::string& sql) {
  SqliteStmt s;
  s.db_ = &db;
  s.sql_ = sql;
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &raw, nullptr);
  s.stmt_.reset(raw);
  if (rc != SQLITE_OK) return db.CallFailed("sqlite3_prepare_v2(" + sql + ")", rc);
  return s;
}

bool SqliteStmt::Next() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) status_ = db_->CallFailed("sqlite3_step(" + sql_ + ")", rc);
  return false;
}

std::string_view SqliteStmt::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), col));
  if (!p) return {};
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col)));
}

}  // namespace braid::importers
