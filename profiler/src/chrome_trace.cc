#include "braid/chrome_trace.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace braid {

namespace {

using nlohmann::json;

json Meta(const char* name, int pid, int tid, json args) {
  json m = {{"ph", "M"}, {"name", name}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

// Names and sort keys for every process (rank) and thread (lane) in use.
void AddMetadata(const ChromeTraceInput& in, json& out) {
  std::map<std::pair<int, int>, std::string> names;
  for (const Event& e : in.events) names.emplace(std::pair{e.rank, e.lane}, "lane " + std::to_string(e.lane));
  for (const TraceLane& l : in.lanes) names[{l.rank, l.lane}] = l.name;
  std::set<int> ranks;
  for (const auto& [key, name] : names) ranks.insert(key.first);
  for (int r : ranks) {
    out.push_back(Meta("process_name", r, -1, {{"name", "rank " + std::to_string(r)}}));
    out.push_back(Meta("process_sort_index", r, -1, {{"sort_index", r}}));
  }
  for (const auto& [key, name] : names) {
    out.push_back(Meta("thread_name", key.first, key.second, {{"name", name}}));
    out.push_back(Meta("thread_sort_index", key.first, key.second, {{"sort_index", key.second}}));
  }
}

json Slice(const Event& e, int64_t origin) {
  json args = {{"iteration", e.iteration}, {"bytes", e.bytes}, {"flops", e.flops}};
  if (e.chunk >= 0) args["chunk"] = e.chunk;
  if (e.step >= 0) args["step"] = e.step;
  if (e.peer >= 0) args["peer"] = e.peer;
  if (e.correlation >= 0) args["correlation"] = e.correlation;
  return {{"ph", "X"},
          {"name", e.name},
          {"cat", EventKindName(e.kind)},
          {"pid", e.rank},
          {"tid", e.lane},
          {"ts", double(e.start_ns - origin) / 1e3},
          {"dur", double(std::max<int64_t>(0, e.end_ns - e.start_ns)) / 1e3},
          {"args", std::move(args)}};
}

// A send and its receive share (iteration, correlation) and name each other
// as peers; the arrow starts inside the send slice and ends at the receive.
void AddFlows(const ChromeTraceInput& in, int64_t origin, json& out) {
  using Key = std::tuple<int, int64_t, int, int>;  // iteration, correlation, from, to
  std::map<Key, const Event*> sends;
  for (const Event& e : in.events) {
    if (e.name == "send" && e.correlation >= 0 && e.peer >= 0) {
      sends[{e.iteration, e.correlation, e.rank, e.peer}] = &e;
    }
  }
  int64_t id = 0;
  for (const Event& r : in.events) {
    if (r.name != "recv" || r.correlation < 0 || r.peer < 0) continue;
    auto it = sends.find({r.iteration, r.correlation, r.peer, r.rank});
    if (it == sends.end()) continue;
    const Event& s = *it->second;
    ++id;
    out.push_back({{"ph", "s"}, {"id", id}, {"name", "transfer"}, {"cat", "p2p"}, {"pid", s.rank},
                   {"tid", s.lane}, {"ts", double(s.start_ns - origin) / 1e3}});
    out.push_back({{"ph", "f"}, {"bp", "e"}, {"id", id}, {"name", "transfer"}, {"cat", "p2p"},
                   {"pid", r.rank}, {"tid", r.lane}, {"ts", double(r.start_ns - origin) / 1e3}});
  }
}

}  // namespace

nlohmann::json ChromeTrace(const ChromeTraceInput& in) {
  int64_t origin = INT64_MAX;
  for (const Event& e : in.events) origin = std::min(origin, e.start_ns);
  if (in.events.empty()) origin = 0;
  json events = json::array();
  AddMetadata(in, events);
  // Slices sorted by start so each thread's slices nest cleanly.
  std::vector<const Event*> order;
  order.reserve(in.events.size());
  for (const Event& e : in.events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const Event* a, const Event* b) {
    return std::tie(a->start_ns, b->end_ns) < std::tie(b->start_ns, a->end_ns);
  });
  for (const Event* e : order) events.push_back(Slice(*e, origin));
  AddFlows(in, origin, events);
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"},
          {"otherData", {{"title", in.title}, {"generator", "braid"}}}};
}

}  // namespace braid
