#include "braid/chrome_trace.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "json_text.h"

namespace braid {

using namespace std::string_view_literals;

namespace {

// Overflow tracks of a lane get thread ids lane + k·kTrackStride.
constexpr int kTrackStride = 1000;
// The text handed to the sink in pieces of about this size.
constexpr size_t kTextPieceBytes = size_t(1) << 20;

// Whether an event is a `what` step: "send", or "fc2.dgrad.send" in a layer plan.
bool IsStep(const std::string& name, std::string_view what) {
  if (name.size() < what.size() || name.compare(name.size() - what.size(), what.size(), what) != 0) return false;
  return name.size() == what.size() || name[name.size() - what.size() - 1] == '.';
}

void AppendMeta(std::string& out, const char* name, int pid, int tid, const char* key, const std::string* text,
                int64_t number) {
  out += R"({"ph":"M","name":")"sv;
  out += name;
  out += R"(","pid":)"sv;
  AppendJsonInt(out, pid);
  if (tid >= 0) {
    out += R"(,"tid":)"sv;
    AppendJsonInt(out, tid);
  }
  out += R"(,"args":{")"sv;
  out += key;
  out += "\":";
  if (text != nullptr) {
    AppendJsonString(out, *text);
  } else {
    AppendJsonInt(out, number);
  }
  out += "}},";
}

}  // namespace

// One end of a transfer, as the flow arrow needs it.
struct ChromeTraceWriter::End {
  int rank = 0, tid = 0;
  int64_t start_ns = 0;
};

// A send and its receive share (iteration, correlation) and name each other
// as peers: the key is (iteration, correlation, sender, receiver).
struct ChromeTraceWriter::PendingKey {
  int iteration = 0;
  int64_t correlation = 0;
  int from = 0, to = 0;
  bool operator==(const PendingKey&) const = default;
};

struct ChromeTraceWriter::PendingKeyHash {
  // splitmix64's finalizer: keys that differ in one field spread over every bit.
  static uint64_t Mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  size_t operator()(const PendingKey& k) const {
    const uint64_t ends = uint64_t(uint32_t(k.from)) << 32 | uint32_t(k.to);
    return size_t(Mix(uint64_t(k.correlation) ^ Mix(ends ^ Mix(uint64_t(uint32_t(k.iteration))))));
  }
};

ChromeTraceWriter::ChromeTraceWriter(Sink sink, int64_t origin_ns)
    : sink_(std::move(sink)),
      origin_(origin_ns),
      sends_(std::make_unique<Pending>()),
      recvs_(std::make_unique<Pending>()) {
  buf_.reserve(kTextPieceBytes + 4096);
  buf_ += R"({"traceEvents":[)"sv;
}

ChromeTraceWriter::~ChromeTraceWriter() = default;

Status ChromeTraceWriter::Drain(bool all) {
  if (!failed_.ok()) return failed_;
  if (buf_.empty() || (!all && buf_.size() < kTextPieceBytes)) return Status::Ok();
  failed_ = sink_(buf_);
  buf_.clear();
  return failed_;
}

Status ChromeTraceWriter::Add(std::span<const Event> events) {
  if (finished_) return Status::Internal("chrome trace: events added after Finish");
  for (const Event& e : events) {
    if (!group_.empty()) {
      const Event& g = group_.front();
      const auto key = std::tie(e.rank, e.lane, e.start_ns), last = std::tie(g.rank, g.lane, g.start_ns);
      if (key < last) {
        return failed_ = Status::Internal("chrome trace: events out of order (rank " + std::to_string(e.rank) +
                                          " lane " + std::to_string(e.lane) + " at " + std::to_string(e.start_ns) +
                                          " ns after " + std::to_string(g.start_ns) + " ns)");
      }
      if (key != last) BRAID_RETURN_IF_ERROR(FlushGroup());
    }
    group_.push_back(e);
  }
  return Drain(false);
}

Status ChromeTraceWriter::FlushGroup() {
  std::stable_sort(group_.begin(), group_.end(), [](const Event& a, const Event& b) { return a.end_ns > b.end_ns; });
  for (const Event& e : group_) BRAID_RETURN_IF_ERROR(Emit(e));
  group_.clear();
  return Status::Ok();
}

Status ChromeTraceWriter::Emit(const Event& e) {
  // Slices on one thread must nest; events of one lane may not (an imported
  // "cpu runtime" lane merges several CPU threads). Each event goes to the
  // first track of its lane where it nests.
  if (std::pair(e.rank, e.lane) != lane_) {
    lane_ = {e.rank, e.lane};
    open_.clear();
  }
  size_t k = 0;
  for (; k < open_.size(); ++k) {
    auto& st = open_[k];
    while (!st.empty() && st.back() <= e.start_ns) st.pop_back();
    if (st.empty() || e.end_ns <= st.back()) break;
  }
  if (k == open_.size()) open_.emplace_back();
  open_[k].push_back(e.end_ns);
  int& count = tracks_[lane_];
  count = std::max(count, int(k) + 1);
  const int tid = e.lane + int(k) * kTrackStride;

  std::string& o = buf_;
  o += R"({"ph":"X","name":)"sv;
  AppendJsonString(o, e.name);
  o += R"(,"cat":)"sv;
  AppendJsonString(o, EventKindName(e.kind));
  o += R"(,"pid":)"sv;
  AppendJsonInt(o, e.rank);
  o += R"(,"tid":)"sv;
  AppendJsonInt(o, tid);
  o += R"(,"ts":)"sv;
  AppendMicrosOfNanos(o, e.start_ns - origin_);
  o += R"(,"dur":)"sv;
  AppendMicrosOfNanos(o, std::max<int64_t>(0, e.end_ns - e.start_ns));
  o += R"(,"args":{"iteration":)"sv;
  AppendJsonInt(o, e.iteration);
  o += R"(,"bytes":)"sv;
  AppendJsonInt(o, e.bytes);
  o += R"(,"flops":)"sv;
  AppendJsonDouble(o, e.flops);
  const std::pair<std::string_view, int64_t> optional[] = {{R"(,"chunk":)", e.chunk},
                                                           {R"(,"step":)", e.step},
                                                           {R"(,"peer":)", e.peer},
                                                           {R"(,"correlation":)", e.correlation}};
  for (const auto& [key, v] : optional) {
    if (v < 0) continue;
    o += key;
    AppendJsonInt(o, v);
  }
  o += "}},";
  ++slices_;
  Pair(e, tid);
  return Drain(false);
}

void ChromeTraceWriter::Pair(const Event& e, int tid) {
  if (e.correlation < 0 || e.peer < 0) return;
  const bool send = IsStep(e.name, "send");
  if (!send && !IsStep(e.name, "recv")) return;
  const PendingKey key = send ? PendingKey{e.iteration, e.correlation, e.rank, e.peer}
                              : PendingKey{e.iteration, e.correlation, e.peer, e.rank};
  const End here{e.rank, tid, e.start_ns};
  Pending& other = send ? *recvs_ : *sends_;
  if (auto it = other.find(key); it != other.end()) {
    send ? Flow(here, it->second) : Flow(it->second, here);
    other.erase(it);
    return;
  }
  (send ? *sends_ : *recvs_).emplace(key, here);
}

// The arrow starts inside the send slice and ends at the receive.
void ChromeTraceWriter::Flow(const End& s, const End& r) {
  const int64_t id = ++flow_id_;
  for (const End* end : {&s, &r}) {
    std::string& o = buf_;
    o += end == &s ? R"({"ph":"s","id":)"sv : R"({"ph":"f","bp":"e","id":)"sv;
    AppendJsonInt(o, id);
    o += R"(,"name":"transfer","cat":"p2p","pid":)"sv;
    AppendJsonInt(o, end->rank);
    o += R"(,"tid":)"sv;
    AppendJsonInt(o, end->tid);
    o += R"(,"ts":)"sv;
    AppendMicrosOfNanos(o, end->start_ns - origin_);
    o += "},";
  }
}

Status ChromeTraceWriter::Finish(const std::string& title, const std::vector<TraceLane>& lanes) {
  if (finished_) return Status::Internal("chrome trace: Finish called twice");
  if (!group_.empty()) BRAID_RETURN_IF_ERROR(FlushGroup());
  finished_ = true;
  std::map<std::pair<int, int>, std::string> names;
  for (const auto& [key, n] : tracks_) names.emplace(key, "lane " + std::to_string(key.second));
  for (const TraceLane& l : lanes) names[{l.rank, l.lane}] = l.name;
  std::set<int> ranks;
  for (const auto& [key, name] : names) ranks.insert(key.first);
  for (int r : ranks) {
    const std::string process = "rank " + std::to_string(r);
    AppendMeta(buf_, "process_name", r, -1, "name", &process, 0);
    AppendMeta(buf_, "process_sort_index", r, -1, "sort_index", nullptr, r);
  }
  for (const auto& [key, name] : names) {
    const auto it = tracks_.find(key);
    const int n = it == tracks_.end() ? 1 : it->second;
    for (int k = 0; k < n; ++k) {
      const int tid = key.second + k * kTrackStride;
      const std::string track = k == 0 ? name : name + " (" + std::to_string(k + 1) + ")";
      AppendMeta(buf_, "thread_name", key.first, tid, "name", &track, 0);
      AppendMeta(buf_, "thread_sort_index", key.first, tid, "sort_index", nullptr,
                 int64_t(key.second) * kTrackStride + k);
    }
    BRAID_RETURN_IF_ERROR(Drain(false));
  }
  if (buf_.back() == ',') buf_.pop_back();  // JSON has no trailing comma
  buf_ += R"(],"displayTimeUnit":"ns","otherData":{"title":)"sv;
  AppendJsonString(buf_, title);
  buf_ += R"(,"generator":"braid"}})"sv;
  return Drain(true);
}

nlohmann::json ChromeTrace(const ChromeTraceInput& in) {
  int64_t origin = 0;
  for (size_t i = 0; i < in.events.size(); ++i) {
    origin = i == 0 ? in.events[i].start_ns : std::min(origin, in.events[i].start_ns);
  }
  std::vector<Event> sorted = in.events;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Event& a, const Event& b) {
    return std::tie(a.rank, a.lane, a.start_ns) < std::tie(b.rank, b.lane, b.start_ns);
  });
  std::string text;
  ChromeTraceWriter w(
      [&](std::string_view piece) {
        text.append(piece);
        return Status::Ok();
      },
      origin);
  Status s = w.Add(sorted);
  if (s.ok()) s = w.Finish(in.title, in.lanes);
  // The writer fails only on order, which the sort ensures, or on its sink,
  // which cannot fail here.
  if (!s.ok()) return nullptr;
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace braid
