// Chrome Trace Event / Perfetto JSON (object form) for one run: one process
// per rank and one thread per lane, both named and sorted; an `X` slice per
// event with its figures in args; flow arrows from each send to its receive.
// Slices on a thread always nest: events of one lane that overlap without
// nesting (an imported lane that merges CPU threads) go to extra tracks of
// that lane, "name (2)", so that viewers find nothing malformed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/event.h"
#include "braid/status.h"
#include "braid/trace_lane.h"

namespace braid {

struct ChromeTraceInput {
  std::string title;             // shown as trace metadata
  std::vector<TraceLane> lanes;  // names; lanes absent here are named "lane N"
  std::vector<Event> events;
};

// Timestamps are µs relative to the earliest event (Perfetto's unit), with
// ns precision kept exactly in the fraction. The events may come in any
// order. (Built by ChromeTraceWriter, then parsed: one writer for both.)
nlohmann::json ChromeTrace(const ChromeTraceInput& input);

// The same trace written in pieces, for runs too large to hold (an export
// of 10 million events): events come in batches in the store's order, by
// (rank, lane, start_ns), and `sink` gets the JSON text in pieces of about
// a megabyte. What the writer holds is one lane's open slices, a track count
// per lane and the sends and receives not yet paired (in a ring, about two
// ranks' worth), never the run. Process and thread names go at the end,
// once every lane's track count is known; viewers read them anywhere.
// A send pairs with one receive (the first of its key found).
class ChromeTraceWriter {
 public:
  using Sink = std::function<Status(std::string_view)>;
  // `origin_ns` is shown as 0: the earliest start of what is written.
  ChromeTraceWriter(Sink sink, int64_t origin_ns);
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // Internal when an event comes before one already added in that order; a
  // sink's error is returned, and every later call returns it too.
  Status Add(std::span<const Event> events);
  // Names and sort keys of processes (ranks) and threads (lane tracks), the
  // title, and the closing brackets. Lanes absent here are named "lane N".
  Status Finish(const std::string& title, const std::vector<TraceLane>& lanes);
  int64_t slices() const { return slices_; }

 private:
  struct End;
  struct PendingKey;
  struct PendingKeyHash;
  using Pending = std::unordered_multimap<PendingKey, End, PendingKeyHash>;

  Status Emit(const Event& e);
  void Pair(const Event& e, int tid);
  void Flow(const End& send, const End& recv);
  Status FlushGroup();
  Status Drain(bool all);

  Sink sink_;
  int64_t origin_;
  std::string buf_;
  Status failed_;
  bool finished_ = false;
  int64_t slices_ = 0, flow_id_ = 0;
  // Events of one (rank, lane, start_ns), ordered longest first when the key
  // changes, so that the longer encloses the shorter.
  std::vector<Event> group_;
  // The current lane's open slice ends per track; the track count per lane.
  std::pair<int, int> lane_{-1, -1};
  std::vector<std::vector<int64_t>> open_;
  std::map<std::pair<int, int>, int> tracks_;
  std::unique_ptr<Pending> sends_, recvs_;
};

}  // namespace braid
