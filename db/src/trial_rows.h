// The trials row insert, shared by Store::AddTrial and Store::AddTrialWithRun
// (which runs it inside the run's transaction).
#pragma once

#include <cstdint>
#include <string>

#include "braid/store.h"

struct sqlite3;

namespace braid::db {

// Inserts one trial row; the caller has checked the session and run exist.
// A key already used in the session is refused with a message naming it.
Result<int64_t> InsertTrialRow(sqlite3* db, int64_t session, const TrialInfo& trial, const std::string& path);

}  // namespace braid::db
