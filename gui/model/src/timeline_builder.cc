#include "timeline_builder.h"

#include <algorithm>
#include <climits>
#include <exception>
#include <string>

namespace braid::view {

namespace {

bool StartsBefore(const DrawnEvent& a, const DrawnEvent& b) { return a.start_ns < b.start_ns; }

}  // namespace

TimelineBuilder::TimelineBuilder(const std::vector<LaneInfo>& lanes) {
  for (const LaneInfo& l : lanes) {
    TimelineRow& row = RowOf(l.rank, l.lane);
    if (!l.name.empty()) row.name = l.name;
    row.kind = l.kind;
  }
  into_ = nullptr;
  t_.origin_ns = INT64_MAX;
  t_.end_ns = INT64_MIN;
}

void TimelineBuilder::ExpectIterations(int iterations, int64_t most_events) {
  expected_iterations_ = iterations;
  most_events_ = std::max<int64_t>(most_events, 0);
}

TimelineRow& TimelineBuilder::RowOf(int rank, int lane) {
  auto [it, added] = rows_.try_emplace({rank, lane});
  if (added) {
    it->second.rank = rank;
    it->second.lane = lane;
    it->second.name = "lane " + std::to_string(lane);
  }
  return it->second;
}

void TimelineBuilder::Add(const Event& e) {
  DrawnEvent d;
  d.start_ns = e.start_ns;
  d.end_ns = e.end_ns;
  d.correlation = e.correlation;
  d.iteration = e.iteration;
  d.name = t_.names.Intern(e.name);
  d.kind = e.kind;
  Add(e.rank, e.lane, d);
}

void TimelineBuilder::Add(int rank, int lane, const DrawnEvent& e) {
  t_.origin_ns = std::min(t_.origin_ns, e.start_ns);
  t_.end_ns = std::max(t_.end_ns, e.end_ns);
  if (!span_ || span_->iteration != e.iteration) {
    span_ = &spans_.try_emplace(e.iteration, IterationSpan{e.iteration, e.start_ns, e.end_ns}).first->second;
  }
  span_->begin_ns = std::min(span_->begin_ns, e.start_ns);
  span_->end_ns = std::max(span_->end_ns, e.end_ns);
  if (!into_ || into_->rank != rank || into_->lane != lane) {
    into_ = &RowOf(rank, lane);
    into_in_order_ = !unsorted_.contains(into_);
    reserved_ = expected_iterations_ <= 1 || !into_->events.empty();
  }
  if (!reserved_ && !into_->events.empty() && e.iteration != into_->events.front().iteration) {
    reserved_ = true;
    const int64_t per_iteration = int64_t(into_->events.size());
    const int64_t want = std::min(most_events_, per_iteration * expected_iterations_ / 8 * 9 + 16);
    // A hint from a record that may be damaged: a room that cannot be had
    // only leaves the row growing as before.
    try {
      if (want > int64_t(into_->events.capacity())) {
        into_->events.reserve(size_t(want));
        into_->max_end.reserve(size_t(want));
      }
    } catch (const std::exception&) {
      // std::bad_alloc or std::length_error: the row is as it was, and grows as before.
    }
  }
  std::vector<DrawnEvent>& events = into_->events;
  // The running maximum of ends as the events come, while they come in
  // order (as the store hands them): Finish need not walk them again.
  if (into_in_order_ && !events.empty() && e.start_ns < events.back().start_ns) {
    unsorted_.insert(into_);
    into_in_order_ = false;
  }
  if (into_in_order_) {
    into_->max_end.push_back(into_->max_end.empty() ? e.end_ns : std::max(into_->max_end.back(), e.end_ns));
  }
  events.push_back(e);
  ++t_.event_count;
}

Timeline TimelineBuilder::Finish() && {
  Timeline t = std::move(t_);
  if (t.event_count == 0) t.origin_ns = t.end_ns = 0;
  for (const auto& [iteration, s] : spans_) t.iterations.push_back(s);
  t.rows.reserve(rows_.size());
  for (auto& [key, r] : rows_) {
    const bool sorted = !unsorted_.contains(&r);
    TimelineRow& row = t.rows.emplace_back(std::move(r));
    // The store returns events sorted by start already; stable keeps ties.
    if (!sorted) {
      std::stable_sort(row.events.begin(), row.events.end(), StartsBefore);
      row.max_end.resize(row.events.size());
      int64_t m = INT64_MIN;
      for (size_t i = 0; i < row.events.size(); ++i) row.max_end[i] = m = std::max(m, row.events[i].end_ns);
    }
    if (t.ranks.empty() || t.ranks.back() != row.rank) t.ranks.push_back(row.rank);
  }
  rows_.clear();
  unsorted_.clear();
  spans_.clear();
  into_ = nullptr;
  span_ = nullptr;
  return t;
}

}  // namespace braid::view
