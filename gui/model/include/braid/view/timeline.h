// A run laid out for drawing: one row per (rank, lane), each holding its
// events sorted by start time, with a running maximum of their ends so that
// the events visible in a time window are found by binary search (Tracy's
// manner), whatever their widths and even when a lane's events overlap.
//
// Times in a Timeline are the stored ones; `origin_ns` (the first event's
// start) is what the viewer shows as 0, so that two runs compare on one axis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "braid/event.h"
#include "braid/status.h"
#include "braid/store.h"
#include "braid/view/name_table.h"

namespace braid::view {

// What a timeline keeps of an event: what is drawn, picked and matched.
// Its rank and lane are its row's; its name an index into the timeline's
// names. 40 bytes where a braid::Event is about 100 and a heap name: at
// 10M events the difference was 1.5 GB of pages to fault in.
struct DrawnEvent {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t correlation = -1;
  int iteration = 0;
  int32_t name = 0;  // Timeline::names
  EventKind kind = EventKind::kCompute;
};

struct TimelineRow {
  int rank = 0;
  int lane = 0;
  std::string name;                // the store's lane name, or "lane N" when it has none
  std::string kind;                // the store's lane kind ("compute", "comm", ...) or ""
  std::vector<DrawnEvent> events;  // sorted by start_ns
  std::vector<int64_t> max_end;    // max_end[i] = max(events[0..i].end_ns)
  // The events whole, in `events`' order, when the timeline was built from
  // them (BuildTimeline); empty when it was loaded (EventWithDetails reads
  // the one event shown from the store).
  std::vector<Event> whole;
};

struct IterationSpan {
  int iteration = 0;
  int64_t begin_ns = 0, end_ns = 0;  // first start, last end over all ranks
};

struct Timeline {
  int64_t run = 0;
  std::vector<TimelineRow> rows;  // by rank, then lane
  std::vector<int> ranks;         // the ranks that have rows, ascending
  std::vector<IterationSpan> iterations;
  NameTable names;        // what DrawnEvent::name indexes
  int64_t origin_ns = 0;  // earliest start (0 when empty)
  int64_t end_ns = 0;     // latest end
  size_t event_count = 0;
  // The store it was loaded from (LoadTimeline), else "" (BuildTimeline).
  // A loaded timeline's events lack their details (bytes, flops, chunk,
  // step, peer): LoadTimeline reads only what is drawn, and EventWithDetails
  // (run_load.h) reads one event whole, from this store, when it is shown.
  std::string store_path;

  bool without_details() const { return !store_path.empty(); }

  bool empty() const { return event_count == 0; }
  int64_t duration_ns() const { return end_ns - origin_ns; }
  // Rows of `rank` as [first, last) indices into `rows`.
  std::pair<size_t, size_t> RowsOfRank(int rank) const;

  const std::string& NameOf(const DrawnEvent& e) const { return names[e.name]; }
};

// Builds rows from events in any order; lanes name the rows (events on a
// lane the list lacks still get a row).
Timeline BuildTimeline(std::vector<Event> events, const std::vector<LaneInfo>& lanes);

// Reads run `run` through the store's API. NotFound names a missing run.
Result<Timeline> LoadTimeline(const Store& store, int64_t run);

// Indices [first, last) of the events of `row` that intersect [t0, t1)
// (stored times): O(log n).
std::pair<size_t, size_t> VisibleEvents(const TimelineRow& row, int64_t t0, int64_t t1);

// Where an event lives: row and index in the row.
struct EventRef {
  size_t row = 0;
  size_t index = 0;
  bool operator==(const EventRef&) const = default;
};

// Event `ref` as `t` has it: whole when `t` was built from events, else
// its drawn fields with the details at Event's defaults (EventWithDetails,
// run_load.h, reads those from the store).
Event EventOf(const Timeline& t, EventRef ref);

// The other ends of a transfer: events on other rows with the same
// correlation id (send -> recv). Empty when the event has none.
std::vector<EventRef> MatchingTransfers(const Timeline& t, EventRef e);

}  // namespace braid::view
