#include "braid/version.h"

#ifndef BRAID_VERSION
#define BRAID_VERSION "unknown"
#endif
#ifndef BRAID_GIT_REVISION
#define BRAID_GIT_REVISION "unknown"
#endif

namespace braid {

std::string_view BraidVersion() { return BRAID_VERSION; }
std::string_view BraidGitRevision() { return BRAID_GIT_REVISION; }

}  // namespace braid
