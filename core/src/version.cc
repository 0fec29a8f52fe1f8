#include "braid/version.h"

// BRAID_GIT_REVISION, written when building (cmake/BraidGitRevision.cmake).
#include "braid_git_revision.h"

#ifndef BRAID_VERSION
#define BRAID_VERSION "unknown"
#endif

namespace braid {

std::string_view BraidVersion() { return BRAID_VERSION; }
std::string_view BraidGitRevision() { return BRAID_GIT_REVISION; }

}  // namespace braid
