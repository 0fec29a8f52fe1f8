// Whether a store path can take a new run, asked before anything is
// measured or created: what run, tune and import check first.
#pragma once

#include <string>

#include "braid/status.h"

namespace braid {

// Refuses a store that cannot take a new run (not a Braid store, a newer
// schema, an unwritable or missing directory) without creating or changing
// anything. Messages name the field `db`.
[[nodiscard]] Status CheckStoreWritable(const std::string& path);

}  // namespace braid
