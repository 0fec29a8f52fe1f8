// The data-race rule of CheckPlanSemantics (plan_check.h): on one rank, two
// steps that touch overlapping rows of one buffer, at least one writing, must
// be ordered by deps and lane order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "braid/step_access.h"
#include "plan_check_parts.h"

namespace braid {

namespace {

struct Interval {
  int64_t lo, hi;  // rows [lo, hi)
  int step;
  bool write;
};

}  // namespace

Status CheckRaces(const Plan& plan, int r) {
  const RankPlan& rp = plan.ranks[size_t(r)];
  const size_t n = rp.steps.size();
  if (n == 0) return Status::Ok();
  // before[j] has bit i set when step i happens before step j (i < j).
  const size_t words = (n + 63) / 64;
  std::vector<uint64_t> before(n * words, 0);
  std::vector<int> last(plan.lanes.size(), -1);
  for (const Step& s : rp.steps) {
    uint64_t* mine = &before[size_t(s.id) * words];
    auto inherit = [&](int q) {
      const uint64_t* theirs = &before[size_t(q) * words];
      for (size_t w = 0; w <= size_t(q) / 64; ++w) mine[w] |= theirs[w];
      mine[size_t(q) / 64] |= uint64_t{1} << (q % 64);
    };
    for (int d : s.deps) inherit(d);
    int& prev = last[size_t(s.lane)];
    if (prev >= 0) inherit(prev);
    prev = s.id;
  }
  auto ordered = [&](int i, int j) {
    if (i > j) std::swap(i, j);
    return (before[size_t(j) * words + size_t(i) / 64] >> (i % 64)) & 1;
  };

  std::vector<std::vector<Interval>> by_buffer(rp.buffers.size());
  std::vector<bool> written(rp.buffers.size(), false);
  for (const Step& s : rp.steps) {
    for (char which : {'a', 'b', 'c'}) {
      const bool w = Writes(s.kind, which);
      if (!w && !Reads(s.kind, which)) continue;
      const Region& g = RegionOf(s, which);
      if (w) written[size_t(g.buffer)] = true;
      for (int q = 0; q < g.pieces; ++q) {
        by_buffer[size_t(g.buffer)].push_back({g.piece_row(q), g.piece_row(q) + g.rows, s.id, w});
      }
    }
  }
  for (size_t b = 0; b < by_buffer.size(); ++b) {
    if (!written[b]) continue;  // read-only buffers (B, unused inputs) cannot race
    auto& iv = by_buffer[b];
    std::sort(iv.begin(), iv.end(), [](const Interval& x, const Interval& y) { return x.lo < y.lo; });
    std::vector<const Interval*> reads, writes;  // intervals still open at the sweep line
    auto expire = [](std::vector<const Interval*>& v, int64_t at) {
      for (size_t i = 0; i < v.size();) {
        if (v[i]->hi <= at) {
          v[i] = v.back();
          v.pop_back();
        } else {
          ++i;
        }
      }
    };
    auto race = [&](const Interval& x, const Interval& y) -> Status {
      const Step& sx = rp.steps[size_t(std::min(x.step, y.step))];
      const Step& sy = rp.steps[size_t(std::max(x.step, y.step))];
      const bool xw = x.step < y.step ? x.write : y.write;
      const bool yw = x.step < y.step ? y.write : x.write;
      return Status::Invalid("data race on rank " + std::to_string(r) + " buffer '" + rp.buffers[b].name + "' rows " +
                             std::to_string(std::max(x.lo, y.lo)) + ".." + std::to_string(std::min(x.hi, y.hi) - 1) +
                             ": step " + std::to_string(sx.id) + " (" + sx.name + ") " + (xw ? "writes" : "reads") +
                             " and step " + std::to_string(sy.id) + " (" + sy.name + ") " + (yw ? "writes" : "reads") +
                             " them, unordered by deps or lane order");
    };
    for (const Interval& x : iv) {
      expire(reads, x.lo);
      expire(writes, x.lo);
      for (const Interval* y : writes) {
        if (y->step != x.step && !ordered(x.step, y->step)) return race(*y, x);
      }
      if (x.write) {
        for (const Interval* y : reads) {
          if (y->step != x.step && !ordered(x.step, y->step)) return race(*y, x);
        }
      }
      (x.write ? writes : reads).push_back(&x);
    }
  }
  return Status::Ok();
}

}  // namespace braid
