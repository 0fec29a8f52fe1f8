#include "braid/chrome_trace.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace braid {

namespace {

using nlohmann::json;

// Overflow tracks of a lane get thread ids lane + k·kTrackStride.
constexpr int kTrackStride = 1000;

json Meta(const char* name, int pid, int tid, json args) {
  json m = {{"ph", "M"}, {"name", name}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

// Slices on one thread must nest; events of one lane may not (an imported
// "cpu runtime" lane merges several CPU threads). Each event goes to the
// first track of its lane where it nests, so nothing in the file is
// malformed. Returns the thread id of every event and the tracks per lane.
struct Tracks {
  std::unordered_map<const Event*, int> tid;
  std::map<std::pair<int, int>, int> count;  // (rank, lane) → tracks used
};

Tracks AssignTracks(const std::vector<const Event*>& sorted) {
  Tracks t;
  std::map<std::pair<int, int>, std::vector<std::vector<int64_t>>> open;  // per lane: per track, open ends
  for (const Event* e : sorted) {
    auto& stacks = open[{e->rank, e->lane}];
    size_t k = 0;
    for (; k < stacks.size(); ++k) {
      auto& st = stacks[k];
      while (!st.empty() && st.back() <= e->start_ns) st.pop_back();
      if (st.empty() || e->end_ns <= st.back()) break;
    }
    if (k == stacks.size()) stacks.emplace_back();
    stacks[k].push_back(e->end_ns);
    t.tid[e] = e->lane + int(k) * kTrackStride;
    int& c = t.count[{e->rank, e->lane}];
    c = std::max(c, int(k) + 1);
  }
  return t;
}

// Names and sort keys for every process (rank) and thread (lane track).
void AddMetadata(const ChromeTraceInput& in, const Tracks& tracks, json& out) {
  std::map<std::pair<int, int>, std::string> names;
  for (const auto& [key, n] : tracks.count) names.emplace(key, "lane " + std::to_string(key.second));
  for (const TraceLane& l : in.lanes) names[{l.rank, l.lane}] = l.name;
  std::set<int> ranks;
  for (const auto& [key, name] : names) ranks.insert(key.first);
  for (int r : ranks) {
    out.push_back(Meta("process_name", r, -1, {{"name", "rank " + std::to_string(r)}}));
    out.push_back(Meta("process_sort_index", r, -1, {{"sort_index", r}}));
  }
  for (const auto& [key, name] : names) {
    const auto it = tracks.count.find(key);
    const int n = it == tracks.count.end() ? 1 : it->second;
    for (int k = 0; k < n; ++k) {
      const int tid = key.second + k * kTrackStride;
      const std::string track = k == 0 ? name : name + " (" + std::to_string(k + 1) + ")";
      out.push_back(Meta("thread_name", key.first, tid, {{"name", track}}));
      out.push_back(Meta("thread_sort_index", key.first, tid, {{"sort_index", key.second * kTrackStride + k}}));
    }
  }
}

json Slice(const Event& e, int tid, int64_t origin) {
  json args = {{"iteration", e.iteration}, {"bytes", e.bytes}, {"flops", e.flops}};
  if (e.chunk >= 0) args["chunk"] = e.chunk;
  if (e.step >= 0) args["step"] = e.step;
  if (e.peer >= 0) args["peer"] = e.peer;
  if (e.correlation >= 0) args["correlation"] = e.correlation;
  return {{"ph", "X"},
          {"name", e.name},
          {"cat", EventKindName(e.kind)},
          {"pid", e.rank},
          {"tid", tid},
          {"ts", double(e.start_ns - origin) / 1e3},
          {"dur", double(std::max<int64_t>(0, e.end_ns - e.start_ns)) / 1e3},
          {"args", std::move(args)}};
}

// Whether an event is a `what` step: "send", or "fc2.dgrad.send" in a layer plan.
bool IsStep(const std::string& name, std::string_view what) {
  if (name.size() < what.size() || name.compare(name.size() - what.size(), what.size(), what) != 0) return false;
  return name.size() == what.size() || name[name.size() - what.size() - 1] == '.';
}

// A send and its receive share (iteration, correlation) and name each other
// as peers; the arrow starts inside the send slice and ends at the receive.
void AddFlows(const ChromeTraceInput& in, const Tracks& tracks, int64_t origin, json& out) {
  using Key = std::tuple<int, int64_t, int, int>;  // iteration, correlation, from, to
  std::map<Key, const Event*> sends;
  for (const Event& e : in.events) {
    if (IsStep(e.name, "send") && e.correlation >= 0 && e.peer >= 0) {
      sends[{e.iteration, e.correlation, e.rank, e.peer}] = &e;
    }
  }
  int64_t id = 0;
  for (const Event& r : in.events) {
    if (!IsStep(r.name, "recv") || r.correlation < 0 || r.peer < 0) continue;
    auto it = sends.find({r.iteration, r.correlation, r.peer, r.rank});
    if (it == sends.end()) continue;
    const Event& s = *it->second;
    ++id;
    out.push_back({{"ph", "s"},
                   {"id", id},
                   {"name", "transfer"},
                   {"cat", "p2p"},
                   {"pid", s.rank},
                   {"tid", tracks.tid.at(&s)},
                   {"ts", double(s.start_ns - origin) / 1e3}});
    out.push_back({{"ph", "f"},
                   {"bp", "e"},
                   {"id", id},
                   {"name", "transfer"},
                   {"cat", "p2p"},
                   {"pid", r.rank},
                   {"tid", tracks.tid.at(&r)},
                   {"ts", double(r.start_ns - origin) / 1e3}});
  }
}

}  // namespace

nlohmann::json ChromeTrace(const ChromeTraceInput& in) {
  int64_t origin = INT64_MAX;
  for (const Event& e : in.events) origin = std::min(origin, e.start_ns);
  if (in.events.empty()) origin = 0;
  // By lane, then start; the longer of two slices that start together first,
  // so that it encloses the shorter.
  std::vector<const Event*> order;
  order.reserve(in.events.size());
  for (const Event& e : in.events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const Event* a, const Event* b) {
    return std::tie(a->rank, a->lane, a->start_ns, b->end_ns) < std::tie(b->rank, b->lane, b->start_ns, a->end_ns);
  });
  const Tracks tracks = AssignTracks(order);
  json events = json::array();
  AddMetadata(in, tracks, events);
  for (const Event* e : order) events.push_back(Slice(*e, tracks.tid.at(e), origin));
  AddFlows(in, tracks, origin, events);
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"title", in.title}, {"generator", "braid"}}}};
}

}  // namespace braid
