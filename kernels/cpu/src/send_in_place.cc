#include "send_in_place.h"

#include <algorithm>

#include "braid/step_access.h"

namespace braid::cpu {

std::vector<bool> SendsInPlace(const RankPlan& plan) {
  // last_write[b][row]: the highest id of a step writing that row, or -1.
  std::vector<std::vector<int>> last_write(plan.buffers.size());
  for (size_t b = 0; b < plan.buffers.size(); ++b) last_write[b].assign(size_t(plan.buffers[b].rows), -1);
  for (const Step& s : plan.steps) {
    if (!Writes(s.kind, 'c') || s.c.buffer < 0 || size_t(s.c.buffer) >= last_write.size()) continue;
    std::vector<int>& rows = last_write[size_t(s.c.buffer)];
    ForRows(s.c, [&](int64_t, int64_t row) {
      if (row >= 0 && row < int64_t(rows.size())) rows[size_t(row)] = std::max(rows[size_t(row)], s.id);
    });
  }
  std::vector<bool> in_place(plan.steps.size(), false);
  for (const Step& s : plan.steps) {
    if (s.kind != StepKind::kSend || s.a.buffer < 0 || size_t(s.a.buffer) >= last_write.size()) continue;
    const std::vector<int>& rows = last_write[size_t(s.a.buffer)];
    bool rewritten = false;
    ForRows(s.a, [&](int64_t, int64_t row) {
      rewritten = rewritten || (row >= 0 && row < int64_t(rows.size()) && rows[size_t(row)] > s.id);
    });
    if (size_t(s.id) < in_place.size()) in_place[size_t(s.id)] = !rewritten;
  }
  return in_place;
}

}  // namespace braid::cpu
