// The store's schema history and how an open file is recognised and brought
// up to date. Private to db/; tests include it to exercise the mechanism.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "braid/status.h"

namespace braid::db {

// PRAGMA application_id of every Braid store: "BRID".
inline constexpr int32_t kApplicationId = 0x42524944;

// One forward step: `sql` takes a store from schema `version - 1` to
// `version`. The list is append-only: a released step never changes.
struct Migration {
  int version;
  const char* sql;
};

// The steps of this build, versions 1..kStoreSchemaVersion.
const std::vector<Migration>& Migrations();

enum class FileKind {
  kEmpty,    // no tables, application_id and user_version 0: a new store
  kBraid,    // application_id is ours; `version` is its user_version
  kForeign,  // an SQLite database of something else
};

struct FileIdentity {
  FileKind kind = FileKind::kEmpty;
  int version = 0;
};

// Reads the header fields and the table count; writes nothing. A file that
// is not SQLite fails with Invalid.
Result<FileIdentity> Identify(sqlite3* db);

// Applies the steps above the store's user_version in one IMMEDIATE
// transaction (all or nothing) and sets user_version and application_id.
// Refuses a store newer than the last step. `path` names the file in errors.
Status Migrate(sqlite3* db, const std::string& path, const std::vector<Migration>& steps);

// Every table, column and index schema `version` has is in the file: a
// store with a table dropped or rebuilt without a column is refused here, as
// "damaged store: PATH has no table 'events'", not later with SQL text. The
// expected objects are read from the migrations applied to an in-memory
// database, so they never drift from what the steps create.
Status CheckSchema(sqlite3* db, const std::string& path, int version);

// "FILE was written by a newer Braid (schema N, this build knows M)".
Status NewerSchemaError(const std::string& path, int version, int known);

}  // namespace braid::db
