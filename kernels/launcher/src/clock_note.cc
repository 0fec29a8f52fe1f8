// The run note on clock alignment, shared by the process backends (cpu, cuda).
#include <algorithm>
#include <cstdio>

#include "braid/launcher.h"

namespace braid {

std::string ClockAlignmentNote(const std::vector<ClockOffset>& offsets, int rounds, const std::string& how) {
  int64_t worst_offset = 0, worst_uncertainty = 0;
  for (const ClockOffset& c : offsets) {
    worst_offset = std::max(worst_offset, c.offset_ns < 0 ? -c.offset_ns : c.offset_ns);
    worst_uncertainty = std::max(worst_uncertainty, c.uncertainty_ns);
  }
  char s[160];
  std::snprintf(s, sizeof s,
                " by ping-pong (shortest of %d round trips per rank): largest offset %lld ns, uncertainty +-%lld ns",
                rounds, static_cast<long long>(worst_offset), static_cast<long long>(worst_uncertainty));
  return "events aligned to rank 0's clock" + how + s;
}

}  // namespace braid
