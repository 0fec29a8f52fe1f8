#include "send_in_place.h"

#include <algorithm>

namespace braid::cpu {

namespace {

const Region* Written(const Step& s) {
  switch (s.kind) {
    case StepKind::kGemm:
    case StepKind::kReduce:
    case StepKind::kCopy:
    case StepKind::kRecv:
    case StepKind::kCollective:
    case StepKind::kFused:
      return &s.c;
    case StepKind::kSend:
    case StepKind::kCompute:
      break;
  }
  return nullptr;
}

// Calls f(first_row, end_row) for every piece of `r`.
template <typename F>
void ForEachPiece(const Region& r, F f) {
  for (int p = 0; p < r.pieces; ++p) f(r.piece_row(p), r.piece_row(p) + r.rows);
}

}  // namespace

std::vector<bool> SendsInPlace(const RankPlan& plan) {
  // last_write[b][row]: the highest id of a step writing that row, or -1.
  std::vector<std::vector<int>> last_write(plan.buffers.size());
  for (size_t b = 0; b < plan.buffers.size(); ++b) last_write[b].assign(size_t(plan.buffers[b].rows), -1);
  for (const Step& s : plan.steps) {
    const Region* w = Written(s);
    if (w == nullptr || w->buffer < 0 || size_t(w->buffer) >= last_write.size()) continue;
    std::vector<int>& rows = last_write[size_t(w->buffer)];
    ForEachPiece(*w, [&](int64_t begin, int64_t end) {
      for (int64_t i = std::max<int64_t>(begin, 0); i < std::min<int64_t>(end, int64_t(rows.size())); ++i) {
        rows[size_t(i)] = std::max(rows[size_t(i)], s.id);
      }
    });
  }
  std::vector<bool> in_place(plan.steps.size(), false);
  for (const Step& s : plan.steps) {
    if (s.kind != StepKind::kSend || s.a.buffer < 0 || size_t(s.a.buffer) >= last_write.size()) continue;
    const std::vector<int>& rows = last_write[size_t(s.a.buffer)];
    bool rewritten = false;
    ForEachPiece(s.a, [&](int64_t begin, int64_t end) {
      for (int64_t i = std::max<int64_t>(begin, 0); i < std::min<int64_t>(end, int64_t(rows.size())); ++i) {
        rewritten = rewritten || rows[size_t(i)] > s.id;
      }
    });
    if (size_t(s.id) < in_place.size()) in_place[size_t(s.id)] = !rewritten;
  }
  return in_place;
}

}  // namespace braid::cpu
