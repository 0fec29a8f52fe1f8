// Picks the backend named on the command line, or says why it cannot run here.
#pragma once

#include <memory>
#include <string_view>

#include "braid/backend.h"
#include "braid/status.h"

namespace braid::cli {

// "cpu" works everywhere. "cuda" is Unavailable (exit 1) without a usable
// GPU; "sim" and "cuda" are Invalid (exit 2) until they are implemented.
Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name);

}  // namespace braid::cli
