#include "braid/run_wire.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace braid::wire {

namespace {

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = out.size();
    out.resize(at + sizeof v);
    std::memcpy(out.data() + at, &v, sizeof v);
  }
  void Str(const std::string& s) {
    Put(uint64_t(s.size()));
    const size_t at = out.size();
    out.resize(at + s.size());
    if (!s.empty()) std::memcpy(out.data() + at, s.data(), s.size());
  }
  void Verify(const VerifyResult& v) {
    Put(uint8_t(v.ran));
    Put(uint8_t(v.ok));
    Put(v.max_rel_error);
    Put(int32_t(v.worst_rank));
  }
  Blob out;
};

class Reader {
 public:
  explicit Reader(const Blob& b) : b_(b) {}
  template <typename T>
  bool Get(T& v) {
    if (b_.size() - at_ < sizeof v) return false;
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool Str(std::string& s) {
    uint64_t n = 0;
    if (!Get(n) || b_.size() - at_ < n) return false;
    s.assign(reinterpret_cast<const char*>(b_.data() + at_), size_t(n));
    at_ += size_t(n);
    return true;
  }
  bool Verify(VerifyResult& v) {
    uint8_t ran = 0, ok = 0;
    int32_t worst = 0;
    if (!Get(ran) || !Get(ok) || !Get(v.max_rel_error) || !Get(worst)) return false;
    v.ran = ran != 0;
    v.ok = ok != 0;
    v.worst_rank = worst;
    return true;
  }
  // Elements of `each` bytes at least: a count beyond the data is damage.
  bool Count(uint64_t& n, size_t each) { return Get(n) && n <= (b_.size() - at_) / each; }
  bool done() const { return at_ == b_.size(); }

 private:
  const Blob& b_;
  size_t at_ = 0;
};

constexpr size_t kEventMinBytes = 64;

}  // namespace

Blob EncodeRankReport(const RankReport& r) {
  Writer w;
  w.Str(r.host);
  w.Verify(r.verify);
  w.Put(uint64_t(r.events.size()));
  for (const Event& e : r.events) {
    w.Put(int32_t(e.iteration));
    w.Put(int32_t(e.rank));
    w.Put(int32_t(e.lane));
    w.Put(int32_t(e.kind));
    w.Str(e.name);
    w.Put(e.start_ns);
    w.Put(e.end_ns);
    w.Put(e.bytes);
    w.Put(e.flops);
    w.Put(int32_t(e.chunk));
    w.Put(int32_t(e.step));
    w.Put(int32_t(e.peer));
    w.Put(e.correlation);
  }
  return std::move(w.out);
}

Result<RankReport> DecodeRankReport(const Blob& blob) {
  Reader rd(blob);
  RankReport r;
  uint64_t n = 0;
  if (!rd.Str(r.host) || !rd.Verify(r.verify) || !rd.Count(n, kEventMinBytes)) {
    return Status::Internal("a rank's report is damaged (header)");
  }
  r.events.resize(size_t(n));
  for (Event& e : r.events) {
    int32_t it = 0, rank = 0, lane = 0, kind = 0, chunk = 0, step = 0, peer = 0;
    const bool ok = rd.Get(it) && rd.Get(rank) && rd.Get(lane) && rd.Get(kind) && rd.Str(e.name) &&
                    rd.Get(e.start_ns) && rd.Get(e.end_ns) && rd.Get(e.bytes) && rd.Get(e.flops) && rd.Get(chunk) &&
                    rd.Get(step) && rd.Get(peer) && rd.Get(e.correlation);
    if (!ok || kind < 0 || kind > int32_t(EventKind::kMarker)) {
      return Status::Internal("a rank's report is damaged (events)");
    }
    e.iteration = it;
    e.rank = rank;
    e.lane = lane;
    e.kind = EventKind(kind);
    e.chunk = chunk;
    e.step = step;
    e.peer = peer;
  }
  if (!rd.done()) return Status::Internal("a rank's report is damaged (trailing bytes)");
  return r;
}

Blob EncodeRunSummary(const RunSummary& s) {
  Writer w;
  w.Verify(s.verify);
  w.Put(uint64_t(s.iteration_ns.size()));
  for (int64_t t : s.iteration_ns) w.Put(t);
  return std::move(w.out);
}

Result<RunSummary> DecodeRunSummary(const Blob& blob) {
  Reader rd(blob);
  RunSummary s;
  uint64_t n = 0;
  if (!rd.Verify(s.verify) || !rd.Count(n, sizeof(int64_t))) return Status::Internal("run summary is damaged");
  s.iteration_ns.resize(size_t(n));
  for (int64_t& t : s.iteration_ns) {
    if (!rd.Get(t)) return Status::Internal("run summary is damaged");
  }
  if (!rd.done()) return Status::Internal("run summary is damaged (trailing bytes)");
  return s;
}

}  // namespace braid::wire
