#include "braid/view/timeline.h"

#include <algorithm>
#include <tuple>

#include "braid/view/run_load.h"
#include "timeline_builder.h"

namespace braid::view {

std::pair<size_t, size_t> Timeline::RowsOfRank(int rank) const {
  const auto lo =
      std::lower_bound(rows.begin(), rows.end(), rank, [](const TimelineRow& r, int k) { return r.rank < k; });
  auto hi = lo;
  while (hi != rows.end() && hi->rank == rank) ++hi;
  return {size_t(lo - rows.begin()), size_t(hi - rows.begin())};
}

Timeline BuildTimeline(std::vector<Event> events, const std::vector<LaneInfo>& lanes) {
  // In row order first (stable: ties keep their order), so that each row's
  // whole events line up with its drawn ones, which the builder keeps in
  // the order they come when sorted.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.rank, a.lane, a.start_ns) < std::tie(b.rank, b.lane, b.start_ns);
  });
  TimelineBuilder b(lanes);
  for (const Event& e : events) b.Add(e);
  Timeline t = std::move(b).Finish();
  size_t r = 0;
  for (Event& e : events) {
    while (t.rows[r].rank != e.rank || t.rows[r].lane != e.lane) ++r;
    t.rows[r].whole.push_back(std::move(e));
  }
  return t;
}

Result<Timeline> LoadTimeline(const Store& store, int64_t run) { return LoadTimeline(store, run, LoadControl{}); }

std::pair<size_t, size_t> VisibleEvents(const TimelineRow& row, int64_t t0, int64_t t1) {
  // First event whose running max end passes t0: every earlier one ended by t0.
  const auto first = std::upper_bound(row.max_end.begin(), row.max_end.end(), t0);
  const size_t a = size_t(first - row.max_end.begin());
  // Events starting at or after t1 are outside.
  const auto last = std::lower_bound(row.events.begin() + ptrdiff_t(a), row.events.end(), t1,
                                     [](const DrawnEvent& e, int64_t t) { return e.start_ns < t; });
  return {a, size_t(last - row.events.begin())};
}

Event EventOf(const Timeline& t, EventRef ref) {
  const TimelineRow& row = t.rows[ref.row];
  if (!row.whole.empty()) return row.whole[ref.index];
  const DrawnEvent& d = row.events[ref.index];
  Event e;
  e.iteration = d.iteration;
  e.rank = row.rank;
  e.lane = row.lane;
  e.kind = d.kind;
  e.name = t.NameOf(d);
  e.start_ns = d.start_ns;
  e.end_ns = d.end_ns;
  e.correlation = d.correlation;
  return e;
}

std::vector<EventRef> MatchingTransfers(const Timeline& t, EventRef e) {
  std::vector<EventRef> out;
  const DrawnEvent& ev = t.rows[e.row].events[e.index];
  if (ev.correlation < 0) return out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (r == e.row) continue;
    const auto& events = t.rows[r].events;
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].correlation == ev.correlation && events[i].iteration == ev.iteration) out.push_back({r, i});
    }
  }
  return out;
}

}  // namespace braid::view
