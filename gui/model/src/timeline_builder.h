// Builds a Timeline one event at a time, so that a run streamed from the
// store in batches (Store::ScanEvents) is laid out without a second whole
// copy of its events. BuildTimeline and the streaming loader share it.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "braid/view/timeline.h"

namespace braid::view {

class TimelineBuilder {
 public:
  // Lanes name the rows; events on a lane the list lacks still get a row.
  explicit TimelineBuilder(const std::vector<LaneInfo>& lanes);

  // Events may come in any order; grouped by (rank, lane) and iteration, as
  // the store hands them, each costs no map lookup.
  void Add(Event&& e);

  // The rows in (rank, lane) order, each sorted by start with its running
  // maximum end. The builder is spent afterwards.
  Timeline Finish() &&;

 private:
  TimelineRow& RowOf(int rank, int lane);

  std::map<std::pair<int, int>, TimelineRow> rows_;
  std::map<int, IterationSpan> spans_;
  Timeline t_;
  TimelineRow* into_ = nullptr;
  IterationSpan* span_ = nullptr;
};

}  // namespace braid::view
