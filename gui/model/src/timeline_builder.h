// Builds a Timeline one event at a time, so that a run streamed from the
// store in batches (Store::ScanEvents) is laid out without a second whole
// copy of its events. BuildTimeline and the streaming loader share it.
#pragma once

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "braid/view/timeline.h"

namespace braid::view {

class TimelineBuilder {
 public:
  // Lanes name the rows; events on a lane the list lacks still get a row.
  explicit TimelineBuilder(const std::vector<LaneInfo>& lanes);

  // Events may come in any order; grouped by (rank, lane) and iteration, as
  // the store hands them, each costs no map lookup. The name is interned.
  void Add(const Event& e);
  // The same for an event already drawn: its name indexes names().
  void Add(int rank, int lane, const DrawnEvent& e);

  // The timeline's names, for Add(rank, lane, e)'s callers to intern into.
  NameTable& names() { return t_.names; }

  // A hint, before the first Add: the run has about `iterations` iterations
  // and at most `most_events` events. A row whose events come in iteration
  // order then reserves room for all of them once its first iteration is
  // in (its count × iterations, an eighth more), instead of growing by
  // doubling: at 10M events the copies and the pages touched twice were a
  // fifth of a load. Room beyond what is used is never touched (no memory).
  void ExpectIterations(int iterations, int64_t most_events);

  // The rows in (rank, lane) order, each sorted by start with its running
  // maximum end. The builder is spent afterwards.
  Timeline Finish() &&;

 private:
  TimelineRow& RowOf(int rank, int lane);

  std::map<std::pair<int, int>, TimelineRow> rows_;
  // Rows whose events came out of start order: sorted, and their running
  // maximum end made, by Finish (the others have theirs as they came).
  std::set<const TimelineRow*> unsorted_;
  std::map<int, IterationSpan> spans_;
  Timeline t_;
  TimelineRow* into_ = nullptr;
  IterationSpan* span_ = nullptr;
  int expected_iterations_ = 0;
  int64_t most_events_ = 0;
  bool reserved_ = false;       // into_ has reserved (or will not)
  bool into_in_order_ = false;  // into_ is not in unsorted_
};

}  // namespace braid::view
