#include "sqlite_check.h"

#include <string>

#include "braid/stored_text.h"

namespace braid::db {
namespace {

bool IsInputError(int rc) {
  switch (rc & 0xff) {  // primary code of an extended one
    case SQLITE_CONSTRAINT:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_TOOBIG:
    case SQLITE_MISMATCH:
      return true;
    default:
      return false;
  }
}

}  // namespace

Status SqliteError(sqlite3* db, int rc, const char* call, const char* /*file*/, int /*line*/) {
  // sqlite3_errmsg describes the last failing call on this connection; with
  // no connection (or none yet) fall back to the code's generic text. The
  // message is for users: no source locations. A damaged file says so
  // first; a failure while running names the SQLite call that failed.
  const char* detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  const int primary = rc & 0xff;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    return Status::Invalid(DamagedStorePrefix(detail));
  }
  if (IsInputError(rc)) return Status::Invalid(std::string(detail) + " (" + sqlite3_errstr(rc) + ")");
  // "rc = sqlite3_step(stmt_)" -> "sqlite3_step".
  std::string name = call;
  name = name.substr(0, name.find('('));
  if (const size_t eq = name.rfind("= "); eq != std::string::npos) name = name.substr(eq + 2);
  return Status::Internal(std::string(detail) + " (" + sqlite3_errstr(rc) + " in " + name + ")");
}

}  // namespace braid::db
