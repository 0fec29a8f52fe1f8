// RAII over sqlite3_stmt and transactions. Every SQLite call goes through
// BRAID_SQLITE. Binds are chained and their first error is kept until the
// next Step / Run, which reports it, so a row insert reads as one line.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "braid/status.h"
#include "sqlite_check.h"

namespace braid::db {

class Statement {
 public:
  static Result<Statement> Prepare(sqlite3* db, std::string_view sql);
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite.
  Statement& BindInt(int i, int64_t v) { return Note(BRAID_SQLITE(db_, sqlite3_bind_int64(stmt_, i, v))); }
  Statement& BindDouble(int i, double v) { return Note(BRAID_SQLITE(db_, sqlite3_bind_double(stmt_, i, v))); }
  Statement& BindText(int i, std::string_view v) {
    return Note(BRAID_SQLITE(db_, sqlite3_bind_text(stmt_, i, v.data(), int(v.size()), SQLITE_TRANSIENT)));
  }
  Statement& BindNull(int i) { return Note(BRAID_SQLITE(db_, sqlite3_bind_null(stmt_, i))); }
  Statement& BindOptional(int i, const std::optional<int64_t>& v) { return v ? BindInt(i, *v) : BindNull(i); }

  // Advances: true when a row is ready, false when done.
  Result<bool> Step();
  // Runs a statement that returns no rows to completion and resets it for
  // the next set of binds.
  Status Run();
  Status Reset();

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::optional<int64_t> OptionalInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  std::string Text(int col) const;

 private:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement& Note(Status s) {
    if (!s.ok() && bind_error_.ok()) bind_error_ = std::move(s);
    return *this;
  }
  Status WithSql(const Status& s) const;

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  Status bind_error_;
};

// Runs SQL that returns no rows (may hold several statements).
Status Exec(sqlite3* db, const char* sql);

// BEGIN IMMEDIATE on Begin(); rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin();
  Status Commit();

 private:
  sqlite3* db_;
  bool open_ = false;
};

}  // namespace braid::db
