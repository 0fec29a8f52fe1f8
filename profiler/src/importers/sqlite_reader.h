// A read-only SQLite connection and statements for the nsys importer. Every
// sqlite3 call that can fail ends in SqliteDb::CallFailed, which turns its
// code into a Status::Invalid naming the file, the call and SQLite's message.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid::importers {

class SqliteDb {
 public:
  // Opens `path` read-only (SQLITE_OPEN_READONLY); checks it is SQLite.
  // `max_steps`: the work all its statements may do (0: in proportion to
  // the file's size).
  static Result<SqliteDb> OpenReadOnly(const std::string& path, int64_t max_steps = 0);

  sqlite3* get() const { return db_.get(); }
  const std::string& path() const { return path_; }
  // A real table (not a view, not a virtual table): reading one is bounded
  // by the file, reading a view is not (a recursive view never ends).
  bool HasTable(std::string_view table) const { return tables_.contains(std::string(table)); }
  // Invalid naming `name` when the file has it as a view or a virtual table.
  Status CheckNotView(std::string_view name) const;
  // The column names of `table`; empty when it does not exist.
  Result<std::set<std::string>> Columns(std::string_view table) const;
  // "<path>: <problem>" as a Status::Invalid.
  Status Fail(std::string_view problem) const;
  // A failed call: "<path>: SQLite error in <what>: <message>".
  Status CallFailed(std::string_view what, int rc) const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
  };
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
  std::set<std::string> tables_;
  std::set<std::string> not_tables_;  // views and virtual tables
  // Work every statement may do in all (SQLite VM steps, counted by a
  // progress handler): proportional to the file, so a query over a crafted
  // file ends instead of running without bound.
  struct Budget {
    int64_t left = 0;
  };
  std::unique_ptr<Budget> budget_ = std::make_unique<Budget>();
};

class SqliteStmt {
 public:
  // @pre `db` outlives the statement.
  static Result<SqliteStmt> Prepare(const SqliteDb& db, const std::string& sql);

  // True when a row is ready; false at the end or on an error (see status()).
  bool Next();
  const Status& status() const { return status_; }

  bool IsNull(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  bool IsInt(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_INTEGER; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  std::string_view Text(int col) const;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
  };
  const SqliteDb* db_ = nullptr;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  Status status_;
};

}  // namespace braid::importers
