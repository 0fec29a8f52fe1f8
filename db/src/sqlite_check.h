// The one checking macro for SQLite calls: BRAID_SQLITE(conn, call) evaluates
// `call` (an int result code) and yields a braid::Status: Ok for SQLITE_OK,
// SQLITE_ROW and SQLITE_DONE, otherwise an error with the SQLite message
// ("damaged store: ..." for a corrupt file) and, for failures while running,
// the SQLite function that failed; never a source location, since the
// message goes to users. Use it as
//   BRAID_RETURN_IF_ERROR(BRAID_SQLITE(db, sqlite3_busy_timeout(db, 5000)));
#pragma once

#include <sqlite3.h>

#include "braid/status.h"
#include "braid/status_context.h"

namespace braid::db {

// Builds the error for a failing result code. Constraint violations and
// files that are not (valid) databases are the user's input: Invalid; the
// rest are failures while running: Internal.
Status SqliteError(sqlite3* db, int rc, const char* call, const char* file, int line);

inline Status CheckSqlite(sqlite3* db, int rc, const char* call, const char* file, int line) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) [[likely]] {
    return Status::Ok();
  }
  return SqliteError(db, rc, call, file, line);
}

// Prefixes an error's message with `context` (e.g. the store's path), keeping
// its code.
using ::braid::WithContext;

}  // namespace braid::db

#define BRAID_SQLITE(conn, call) ::braid::db::CheckSqlite((conn), (call), #call, BRAID_SOURCE_FILE, __LINE__)
