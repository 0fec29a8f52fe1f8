// Which backend runs a plan (DESIGN, "Backends"). The name is what flags,
// stored runs, sessions and preset files say ("sim", "cpu", "cuda"); code
// that decides on the backend decides on this enum, parsed at that edge.
#pragma once

#include <optional>
#include <string_view>

#include "braid/status.h"

namespace braid {

enum class BackendKind { kSim, kCpu, kCuda };

std::string_view BackendKindName(BackendKind kind);  // "sim", "cpu", "cuda"

// The backend named exactly `name`; nullopt for any other text (a stored
// run's importer name, a typo), which callers refuse in their own words or
// treat as none of the three.
std::optional<BackendKind> BackendKindNamed(std::string_view name);

// BackendKindNamed, or Invalid "unknown backend 'NAME' (known: sim, cpu, cuda)".
Result<BackendKind> ParseBackendKind(std::string_view name);

// Whether `name` names `kind` (false for a name that is no backend's).
inline bool IsBackend(std::string_view name, BackendKind kind) { return BackendKindNamed(name) == kind; }

}  // namespace braid
