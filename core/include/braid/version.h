// The version and git revision of this build, as `braid --version` prints
// them and every stored run records them.
#pragma once

#include <string_view>

namespace braid {

std::string_view BraidVersion();      // "0.1.0"
std::string_view BraidGitRevision();  // short hash of HEAD when built, or "unknown"

}  // namespace braid
