#include "braid/view/timeline.h"

#include <algorithm>
#include <climits>
#include <map>

namespace braid::view {

std::pair<size_t, size_t> Timeline::RowsOfRank(int rank) const {
  const auto lo =
      std::lower_bound(rows.begin(), rows.end(), rank, [](const TimelineRow& r, int k) { return r.rank < k; });
  auto hi = lo;
  while (hi != rows.end() && hi->rank == rank) ++hi;
  return {size_t(lo - rows.begin()), size_t(hi - rows.begin())};
}

Timeline BuildTimeline(std::vector<Event> events, const std::vector<LaneInfo>& lanes) {
  Timeline t;
  std::map<std::pair<int, int>, size_t> row_of;
  for (const LaneInfo& l : lanes) row_of.emplace(std::make_pair(l.rank, l.lane), 0);
  for (const Event& e : events) row_of.emplace(std::make_pair(e.rank, e.lane), 0);
  for (auto& [key, index] : row_of) {
    index = t.rows.size();
    TimelineRow& row = t.rows.emplace_back();
    row.rank = key.first;
    row.lane = key.second;
    row.name = "lane " + std::to_string(key.second);
  }
  for (const LaneInfo& l : lanes) {
    TimelineRow& row = t.rows[row_of[{l.rank, l.lane}]];
    if (!l.name.empty()) row.name = l.name;
    row.kind = l.kind;
  }
  std::map<int, IterationSpan> spans;
  t.event_count = events.size();
  t.origin_ns = events.empty() ? 0 : INT64_MAX;
  t.end_ns = events.empty() ? 0 : INT64_MIN;
  // The store hands events grouped by (rank, lane) and iteration: remember
  // the last row and span instead of a map lookup per event.
  std::pair<int, int> last_key{INT_MIN, INT_MIN};
  TimelineRow* into = nullptr;
  IterationSpan* span = nullptr;
  for (Event& e : events) {
    t.origin_ns = std::min(t.origin_ns, e.start_ns);
    t.end_ns = std::max(t.end_ns, e.end_ns);
    if (!span || span->iteration != e.iteration) {
      span = &spans.try_emplace(e.iteration, IterationSpan{e.iteration, e.start_ns, e.end_ns}).first->second;
    }
    span->begin_ns = std::min(span->begin_ns, e.start_ns);
    span->end_ns = std::max(span->end_ns, e.end_ns);
    if (!into || last_key != std::make_pair(e.rank, e.lane)) {
      last_key = {e.rank, e.lane};
      into = &t.rows[row_of[last_key]];
    }
    into->events.push_back(std::move(e));
  }
  for (const auto& [iteration, s] : spans) t.iterations.push_back(s);
  for (TimelineRow& row : t.rows) {
    // The store returns events sorted by start already; stable keeps ties.
    if (!std::is_sorted(row.events.begin(), row.events.end(),
                        [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; })) {
      std::stable_sort(row.events.begin(), row.events.end(),
                       [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
    }
    row.max_end.resize(row.events.size());
    int64_t m = INT64_MIN;
    for (size_t i = 0; i < row.events.size(); ++i) row.max_end[i] = m = std::max(m, row.events[i].end_ns);
    if (t.ranks.empty() || t.ranks.back() != row.rank) t.ranks.push_back(row.rank);
  }
  return t;
}

Result<Timeline> LoadTimeline(const Store& store, int64_t run) {
  BRAID_ASSIGN_OR_RETURN(auto meta, store.GetRun(run));
  BRAID_ASSIGN_OR_RETURN(auto lanes, store.LoadLanes(run));
  BRAID_ASSIGN_OR_RETURN(auto events, store.LoadEvents(run));
  Timeline t = BuildTimeline(std::move(events), lanes);
  t.run = run;
  return t;
}

std::pair<size_t, size_t> VisibleEvents(const TimelineRow& row, int64_t t0, int64_t t1) {
  // First event whose running max end passes t0: every earlier one ended by t0.
  const auto first = std::upper_bound(row.max_end.begin(), row.max_end.end(), t0);
  const size_t a = size_t(first - row.max_end.begin());
  // Events starting at or after t1 are outside.
  const auto last = std::lower_bound(row.events.begin() + ptrdiff_t(a), row.events.end(), t1,
                                     [](const Event& e, int64_t t) { return e.start_ns < t; });
  return {a, size_t(last - row.events.begin())};
}

std::vector<EventRef> MatchingTransfers(const Timeline& t, EventRef e) {
  std::vector<EventRef> out;
  const Event& ev = t.rows[e.row].events[e.index];
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
