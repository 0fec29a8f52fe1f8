// Opening the run store from the command line, with the checks that keep
// bad input from writing anything.
#pragma once

#include <memory>
#include <string>

#include "braid/status.h"
#include "braid/store.h"

namespace braid::cli {

inline constexpr const char* kDefaultStore = "braid.db";

// Before a run: refuses a store that cannot take a new run (not a Braid
// store, a newer schema, an unwritable or missing directory) without
// creating or changing anything.
Status CheckStoreWritable(const std::string& path);

Result<std::unique_ptr<Store>> OpenStoreForWrite(const std::string& path);
// A store a failed command created is removed again (with its WAL files):
// bad input leaves no empty store behind. Call it only for a store that did
// not exist before the command and is closed; one that was there keeps its
// runs (the failed run's transaction rolled back).
void RemoveCreatedStore(const std::string& path);

// NotFound (exit 2) when the file does not exist; never creates it.
Result<std::unique_ptr<Store>> OpenStoreForRead(const std::string& path);

}  // namespace braid::cli
