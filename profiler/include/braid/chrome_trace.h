// Chrome Trace Event / Perfetto JSON (object form) for one run: one process
// per rank and one thread per lane, both named and sorted; an `X` slice per
// event with its figures in args; flow arrows from each send to its receive.
// Slices on a thread always nest: events of one lane that overlap without
// nesting (an imported lane that merges CPU threads) go to extra tracks of
// that lane, "name (2)", so that viewers find nothing malformed.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/event.h"

namespace braid {

struct TraceLane {
  int rank = 0;
  int lane = 0;
  std::string name;
};

struct ChromeTraceInput {
  std::string title;             // shown as trace metadata
  std::vector<TraceLane> lanes;  // names; lanes absent here are named "lane N"
  std::vector<Event> events;
};

// Timestamps are µs relative to the earliest event (Perfetto's unit), with
// ns precision kept in the fraction.
nlohmann::json ChromeTrace(const ChromeTraceInput& input);

}  // namespace braid
