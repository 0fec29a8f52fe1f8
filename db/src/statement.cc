#include "statement.h"

namespace braid::db {
namespace {

// SQL quoted in an error: the multi-row INSERT and the DDL scripts are long.
std::string Quoted(std::string_view sql) {
  constexpr size_t kMax = 80;
  if (sql.size() <= kMax) return "\"" + std::string(sql) + "\"";
  return "\"" + std::string(sql.substr(0, kMax - 3)) + "...\"";
}

}  // namespace

Result<Statement> Statement::Prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  Status s = BRAID_SQLITE(db, sqlite3_prepare_v3(db, sql.data(), int(sql.size()), 0, &stmt, nullptr));
  if (!s.ok()) {
    sqlite3_finalize(stmt);  // null-safe
    return WithContext(s, "preparing " + Quoted(sql));
  }
  return Statement(db, stmt);
}

Statement::Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_), bind_error_(std::move(o.bind_error_)) {
  o.stmt_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Status Statement::WithSql(const Status& s) const {
  if (s.ok()) return s;
  const char* sql = sqlite3_sql(stmt_);
  return WithContext(s, "running " + Quoted(sql != nullptr ? sql : "?"));
}

Result<bool> Statement::Step() {
  if (!bind_error_.ok()) {
    Status s = std::move(bind_error_);
    bind_error_ = Status::Ok();
    sqlite3_reset(stmt_);
    return WithSql(s);
  }
  int rc = SQLITE_OK;
  Status s = BRAID_SQLITE(db_, rc = sqlite3_step(stmt_));
  if (!s.ok()) {
    sqlite3_reset(stmt_);  // leaves the statement reusable; its code repeats the step's
    return WithSql(s);
  }
  return rc == SQLITE_ROW;
}

Status Statement::Run() {
  BRAID_RETURN_IF_ERROR(Step().status());
  return Reset();
}

Status Statement::Reset() { return WithSql(BRAID_SQLITE(db_, sqlite3_reset(stmt_))); }

std::string Statement::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, col)));
}

Status Exec(sqlite3* db, const char* sql) {
  Status s = BRAID_SQLITE(db, sqlite3_exec(db, sql, nullptr, nullptr, nullptr));
  if (s.ok()) return s;
  return WithContext(s, "running " + Quoted(sql));
}

Transaction::~Transaction() {
  // Rolling back cannot fail in a way we could act on here; the connection
  // stays usable either way.
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::Begin() {
  BRAID_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE"));
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  BRAID_RETURN_IF_ERROR(Exec(db_, "COMMIT"));
  open_ = false;
  return Status::Ok();
}

}  // namespace braid::db
