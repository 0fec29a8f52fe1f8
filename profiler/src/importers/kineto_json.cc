// Reads a Kineto trace with simdjson's On-Demand API: one forward pass, each
// event's fields taken in document order, values we do not need skipped.
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "braid/gemm_keys.h"
#include "braid/trace_import.h"
#include "gzip_window.h"
#include "kineto_records.h"
#include "rank_assembly.h"

namespace braid::importers {
namespace {

namespace od = simdjson::ondemand;

class Reader {
 public:
  explicit Reader(std::string_view label) : label_(label) {}

  Status Fail(const std::string& problem) const { return Status::Invalid(std::string(label_) + ": " + problem); }
  Status JsonFail(const std::string& where, simdjson::error_code e) const {
    return Fail("invalid JSON at " + where + ": " + simdjson::error_message(e));
  }

  Status ReadRoot(od::document& doc, KinetoRecords* out);

  // For a read in parts (ReadInParts): this part's events are numbered on
  // from `first`; after ReadRoot, the number after its last, how many
  // traceEvents arrays it met, and whether one was the root's last key.
  void NumberFrom(size_t first) { first_index_ = first; }
  size_t next_index() const { return next_index_; }
  int events_arrays() const { return events_arrays_; }
  bool ended_with_events() const { return ended_with_events_; }

 private:
  Status ReadEvents(od::array events, KinetoRecords* out);
  Status ReadEvent(od::object ev, size_t index, KinetoRecords* out);
  Status ReadArgs(od::object args, size_t index, KinetoRecord* r, std::string_view* input_dims);
  Status ReadDistributedInfo(od::object info, KinetoRecords* out);

  std::string_view label_;
  size_t first_index_ = 0, next_index_ = 0;
  int events_arrays_ = 0;
  bool ended_with_events_ = false;
};

std::string EventWhere(size_t index) { return "traceEvents[" + std::to_string(index) + "]"; }

KinetoCat CategoryOf(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return KinetoCat::kKernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return KinetoCat::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return KinetoCat::kMemset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return KinetoCat::kRuntime;
  if (cat == "cuda_sync") return KinetoCat::kSync;
  if (cat == "gpu_user_annotation") return KinetoCat::kGpuRange;
  return KinetoCat::kOther;
}

// A µs time we can turn into int64 ns without overflow.
bool UsInRange(double us) { return std::isfinite(us) && std::fabs(us) <= kMaxAbsUs; }

Status Reader::ReadRoot(od::document& doc, KinetoRecords* out) {
  od::object root;
  if (auto e = doc.get_object().get(root)) {
    return e == simdjson::INCORRECT_TYPE ? Fail("not a Kineto trace: the JSON root is not an object")
                                         : JsonFail("the root", e);
  }
  bool have_events = false;
  for (auto field_result : root) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return JsonFail("the root object", e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonFail("a root key", e);
    ended_with_events_ = key == "traceEvents";
    if (key == "traceEvents") {
      ++events_arrays_;
      od::array events;
      if (auto e = field.value().get_array().get(events)) {
        return e == simdjson::INCORRECT_TYPE ? Fail("not a Kineto trace: traceEvents is not an array")
                                             : JsonFail("traceEvents", e);
      }
      BRAID_RETURN_IF_ERROR(ReadEvents(events, out));
      have_events = true;
    } else if (key == "distributedInfo") {
      od::object info;
      if (field.value().get_object().get(info) == simdjson::SUCCESS) {
        BRAID_RETURN_IF_ERROR(ReadDistributedInfo(info, out));
      }
    }
  }
  if (!have_events) return Fail("not a Kineto trace: no traceEvents array");
  return Status::Ok();
}

Status Reader::ReadEvents(od::array events, KinetoRecords* out) {
  size_t index = first_index_;
  for (auto item : events) {
    od::value v;
    // get() is rvalue-qualified, whatever clang-tidy's view of the type.
    if (auto e = std::move(item).get(v)) return JsonFail(EventWhere(index), e);  // NOLINT(performance-move-const-arg)
    od::object ev;
    if (auto e = v.get_object().get(ev)) {
      return e == simdjson::INCORRECT_TYPE ? Fail(EventWhere(index) + " is not an object")
                                           : JsonFail(EventWhere(index), e);
    }
    BRAID_RETURN_IF_ERROR(ReadEvent(ev, index, out));
    ++index;
  }
  out->events_seen = static_cast<int>(std::min<size_t>(index, std::numeric_limits<int>::max()));
  next_index_ = index;
  return Status::Ok();
}

Status Reader::ReadEvent(od::object ev, size_t index, KinetoRecords* out) {
  KinetoRecord r;
  std::string_view ph, name, cat, input_dims;
  bool have_ts = false;
  // Named only for an error: building it for each of a trace's events cost
  // a tenth of the read.
  const auto where = [index] { return EventWhere(index); };
  for (auto field_result : ev) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return JsonFail(where(), e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonFail(where(), e);
    od::value v = field.value();
    simdjson::error_code e = simdjson::SUCCESS;
    if (key == "ph") {
      e = v.get_string().get(ph);
    } else if (key == "name") {
      e = v.get_string().get(name);
    } else if (key == "cat") {
      e = v.get_string().get(cat);
    } else if (key == "ts") {
      e = v.get_double().get(r.ts);
      have_ts = true;
    } else if (key == "dur") {
      e = v.get_double().get(r.dur);
    } else if (key == "args") {
      od::object args;
      e = v.get_object().get(args);
      if (!e) BRAID_RETURN_IF_ERROR(ReadArgs(args, index, &r, &input_dims));
    }
    if (e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_ERROR) {
      return Fail(where() + "." + std::string(key) + " has the wrong type");
    }
    if (e) return JsonFail(where() + "." + std::string(key), e);
  }
  if (ph != "X") return Status::Ok();  // metadata, flows, instants: not used
  r.cat = CategoryOf(cat);
  // A GEMM op with its shape maps the GEMMs it launches (braid/gemm_keys.h).
  if (r.cat == KinetoCat::kOther && !input_dims.empty() && (cat == "cpu_op" || cat == "Operator") &&
      IsGemmCpuOpName(name)) {
    r.cat = KinetoCat::kGemmOp;
  }
  // The CPU-side step range; its GPU copy ("gpu_user_annotation") labels
  // nothing (it holds every kernel of the step) and is dropped.
  if (name.starts_with("ProfilerStep#")) r.cat = cat != "gpu_user_annotation" ? KinetoCat::kStep : KinetoCat::kOther;
  if (r.cat == KinetoCat::kOther && !r.has_correlation) return Status::Ok();
  if (!have_ts) return Fail(where() + " (a complete event) has no ts");
  if (r.dur < 0) r.dur = 0;
  if (!UsInRange(r.ts) || !UsInRange(r.dur) || !UsInRange(r.ts + r.dur)) {
    return Fail(where() + " has a timestamp out of range");
  }
  if (r.cat == KinetoCat::kGemmOp) {
    r.name = CpuOpMarkerName(name, input_dims);
  } else if (r.cat != KinetoCat::kOther) {
    r.name = KeptName(name);
  }
  out->events.push_back(std::move(r));
  return Status::Ok();
}

// `input_dims`: the raw JSON of "Input Dims" (a view of the trace's bytes),
// kept for the caller to use if the event is a GEMM op.
Status Reader::ReadArgs(od::object args, size_t index, KinetoRecord* r, std::string_view* input_dims) {
  const auto where = [index] { return EventWhere(index); };
  for (auto field_result : args) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return JsonFail(where() + ".args", e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonFail(where() + ".args", e);
    int64_t* target = nullptr;
    if (key == "stream") {
      target = &r->stream;
    } else if (key == "correlation") {
      target = &r->correlation;
      r->has_correlation = true;
    } else if (key == "device") {
      target = &r->device;
    } else if (key == "bytes") {
      target = &r->bytes;
    } else if (key == "Input Dims") {
      od::array dims;
      if (field.value().get_array().get(dims) == simdjson::SUCCESS) {
        if (dims.raw_json().get(*input_dims) != simdjson::SUCCESS) *input_dims = {};
      }
      continue;
    } else {
      continue;
    }
    if (auto e = field.value().get_int64().get(*target)) {
      if (e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_ERROR || e == simdjson::NUMBER_OUT_OF_RANGE) {
        return Fail(where() + ".args." + std::string(key) + " is not an integer");
      }
      return JsonFail(where() + ".args." + std::string(key), e);
    }
  }
  return Status::Ok();
}

Status Reader::ReadDistributedInfo(od::object info, KinetoRecords* out) {
  for (auto field_result : info) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return JsonFail("distributedInfo", e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonFail("distributedInfo", e);
    if (key != "rank" && key != "world_size") continue;
    int64_t n = 0;
    if (field.value().get_int64().get(n) != simdjson::SUCCESS || n < 0) {
      return Fail("distributedInfo." + std::string(key) + " is not a valid integer");
    }
    if (n >= (key == "rank" ? kMaxImportRanks : kMaxImportRanks + 1)) {
      return Fail("distributedInfo." + std::string(key) + " " + std::to_string(n) + " is above the " +
                  std::to_string(kMaxImportRanks) + " ranks a job may have");
    }
    (key == "rank" ? out->rank : out->world) = static_cast<int>(n);
  }
  return Status::Ok();
}

// A big trace is read in parts of about `part_bytes`, each copied into one
// small buffer and parsed on its own, so that simdjson's index and string
// buffers (about 1.3x the JSON for a whole file, each byte a fresh page to
// fault in and zero) stay small and in cache. Parts end where the bytes
// look like the end of an element of traceEvents ("}" "," "{"); part 0 is
// the file's start closed with "]}", later parts are opened with
// kPartPrefix. That guess is checked by the parse itself: a part whose end
// fell inside a string has an odd number of quotes (simdjson refuses it),
// and one whose end fell anywhere but between two elements of traceEvents
// either does not parse or does not end with traceEvents as the root's
// last key and nothing after. Any failure, and any problem in the trace,
// sends the caller back to one read of the whole file, which gives the
// records and errors (with their indexes) of a plain read.
// On the shared traces (2 cores, a new process each): 35 MB of JSON in
// 98 ms instead of 124, 9.8 MB in 41 instead of 48, with 512 KiB parts
// (256 KiB and 1 MiB within 2 %, 2 MiB 5 % slower).
constexpr std::string_view kPartPrefix = R"({"traceEvents": [)";

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// From `at` on, the first "," with "}" before it and "{" after it (only
// whitespace between): its offset in `comma`, the "{"'s in `next`.
bool FindPartEnd(std::string_view json, size_t at, size_t* comma, size_t* next, size_t* resume) {
  *resume = json.size();
  while (at < json.size()) {
    const void* found = std::memchr(json.data() + at, ',', json.size() - at);
    if (found == nullptr) return false;
    const size_t c = size_t(static_cast<const char*>(found) - json.data());
    size_t before = c, after = c + 1;
    while (before > 0 && IsJsonSpace(json[before - 1])) --before;
    while (after < json.size() && IsJsonSpace(json[after])) ++after;
    if (before > 0 && json[before - 1] == '}' && after < json.size() && json[after] == '{') {
      *comma = c;
      *next = after;
      return true;
    }
    if (after == json.size()) {
      *resume = c;  // what follows this comma is not read yet
      return false;
    }
    at = c + 1;
  }
  return false;
}

// Part `held` (the window's bytes from the part's start) into `part`:
// opened with kPartPrefix unless it is the file's first, cut at `comma`
// and closed with "]}" unless it is the last.
void CopyPart(std::string_view held, bool first, bool last, size_t comma, PaddedBytes& part) {
  // "" rather than a default view: memcpy may not be given a null source.
  const std::string_view prefix = first ? std::string_view("") : kPartPrefix;
  const std::string_view body = last ? held : held.substr(0, comma);
  const std::string_view suffix = last ? std::string_view("") : std::string_view("]}");
  char* p = part.Reserve(prefix.size() + body.size() + suffix.size());
  std::memcpy(p, prefix.data(), prefix.size());
  if (!body.empty()) std::memcpy(p + prefix.size(), body.data(), body.size());
  std::memcpy(p + prefix.size() + body.size(), suffix.data(), suffix.size());
  part.SetSize(prefix.size() + body.size() + suffix.size());
}

// Parses one part into `out`, its events numbered from `first_index`: true
// when it read cleanly as the part it was cut as (see above), and then
// `*next_index` is the number after its last event.
bool ParsePart(std::string_view label, const PaddedBytes& part, bool last, size_t first_index, od::parser& parser,
               KinetoRecords* out, size_t* next_index) {
  // Room for a part a quarter larger than this one: simdjson reallocates
  // its buffers (about 5x the part, fresh pages) for any larger document,
  // and most parts run a little past the size they were cut at.
  if (parser.capacity() < part.size() && parser.allocate(part.size() + part.size() / 4) != simdjson::SUCCESS) {
    return false;
  }
  Reader reader(label);
  reader.NumberFrom(first_index);
  od::document doc;
  const simdjson::padded_string_view view(part.data(), part.size(), part.capacity());
  if (parser.iterate(view).get(doc) != simdjson::SUCCESS || !reader.ReadRoot(doc, out).ok() ||
      reader.events_arrays() != 1) {
    return false;
  }
  // Nothing after the root's "}" (ours): current_location is past the end.
  if (!last && (!reader.ended_with_events() || doc.current_location().error() != simdjson::OUT_OF_BOUNDS)) {
    return false;
  }
  *next_index = reader.next_index();
  return true;
}

// The second thread of a read in parts on two threads: it parses each part
// it is given, with a parser and a part buffer of its own, into records of
// its own, while the reading thread inflates, cuts and parses the others.
class PartThread {
 public:
  PartThread() : thread_([this] { Loop(); }) {}  // std::system_error when no thread can start
  ~PartThread() {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  PartThread(const PartThread&) = delete;
  PartThread& operator=(const PartThread&) = delete;

  // Whether it is parsing a part (not yet Taken or not: Take waits).
  bool Busy() {
    const std::lock_guard<std::mutex> lock(mu_);
    return state_ == State::kParsing;
  }
  // Its buffer, which the reading thread fills while it is not Busy and
  // holds no part untaken.
  PaddedBytes& part() { return part_; }
  // Parses part() (`label` must outlive the Take that follows).
  void Give(std::string_view label, bool last) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      label_ = label;
      last_ = last;
      records_ = KinetoRecords{};
      state_ = State::kParsing;
    }
    wake_.notify_all();
  }
  // Waits for the part given and moves its records to `out`: false when it
  // did not read cleanly.
  bool Take(KinetoRecords* out) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return state_ != State::kParsing; });
    state_ = State::kIdle;
    *out = std::move(records_);
    return ok_;
  }

 private:
  enum class State { kIdle, kParsing, kParsed };

  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || state_ == State::kParsing; });
      if (stop_) return;
      lock.unlock();
      // Its own numbering: the reading thread adds the counts up. Errors
      // send the file to a whole read, which numbers them.
      size_t seen = 0;
      bool ok = false;
      try {
        ok = ParsePart(label_, part_, last_, 0, parser_, &records_, &seen);
      } catch (const std::exception&) {  // bad_alloc: on this thread it would end the process
        ok = false;
      }
      lock.lock();
      ok_ = ok;
      state_ = State::kParsed;
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_, done_;
  State state_ = State::kIdle;
  bool stop_ = false;
  // The part's, written by the reading thread while kIdle and read by this
  // one while kParsing (the mutex orders the two).
  std::string_view label_;
  bool last_ = false;
  bool ok_ = false;
  PaddedBytes part_;
  od::parser parser_;
  KinetoRecords records_;
  std::thread thread_;  // last: started once everything it uses is built
};

}  // namespace

struct KinetoParser::Impl {
  od::parser parser;
  PaddedBytes part;    // ReadInParts' copy of one part
  PaddedBytes window;  // ReadKinetoRecordsInflating's inflated bytes
  int part_threads = 1;
  std::unique_ptr<PartThread> second;  // part_threads 2: started on first use

  // The second thread when this parser has one and it can start.
  PartThread* Second() {
    if (part_threads < 2) return nullptr;
    if (!second) {
      try {
        second = std::make_unique<PartThread>();
      } catch (const std::system_error&) {
        part_threads = 1;  // one thread does the same work
      }
    }
    return second.get();
  }
};

namespace {

// The whole JSON in memory, as a window over it (GzipWindow's interface).
class MemoryWindow {
 public:
  explicit MemoryWindow(std::string_view all) : rest_(all) {}
  static bool Hold(size_t) { return true; }
  std::string_view bytes() const { return rest_; }
  static bool ended() { return true; }
  void Drop(size_t n) { rest_.remove_prefix(n); }
  static void CountRest() {}

 private:
  std::string_view rest_;
};

// Where a part read from the window's start ends: from `part_bytes` on,
// the first "," between two events (FindPartEnd), in `comma` and `next`;
// false when the data ends first (the rest is the last part). The window
// is filled as far as the end needs; `*failed` when it cannot be.
template <typename Window>
bool NextPartEnd(Window& w, size_t part_bytes, size_t* comma, size_t* next, bool* failed) {
  // Most events are short: look a little past the part, then further.
  constexpr size_t kLookAhead = size_t(64) << 10;
  size_t want = part_bytes + kLookAhead;
  size_t from = part_bytes;  // what was searched is not searched again
  for (;;) {
    if (!w.Hold(want)) {
      *failed = true;
      return false;
    }
    const std::string_view b = w.bytes();
    if (from < b.size() && FindPartEnd(b, from, comma, next, &from)) return true;
    if (w.ended()) return false;
    if (b.size() >= kMaxPartSpan) {
      // No trace has an event this long: the rest is counted, not held,
      // so that a run of 2 GiB of spaces is refused in a 32 MiB window.
      w.CountRest();
      *failed = true;
      return false;
    }
    want = b.size() + part_bytes;
  }
}

// Cuts the window into parts (NextPartEnd) and calls
// each(held, first, last, comma) on each, held being the window's bytes from
// the part's start, then drops the part. False when a cut cannot be made or
// `each` returns false.
template <typename Window, typename Each>
bool ForEachPart(Window& w, size_t part_bytes, Each&& each) {
  for (bool first = true;; first = false) {
    size_t comma = 0, next = 0;
    bool failed = false;
    const bool last = !NextPartEnd(w, part_bytes, &comma, &next, &failed);
    if (failed || !each(w.bytes(), first, last, comma)) return false;
    if (last) return true;
    w.Drop(next);
  }
}

// True when every part read cleanly (see above); out then holds what a
// whole read gives. False: out may hold some parts' records. `parser` and
// `part` are the caller's, kept from file to file.
template <typename Window>
bool ReadInParts(Window& w, std::string_view label, size_t part_bytes, KinetoRecords* out, od::parser& parser,
                 PaddedBytes& part) {
  size_t index = 0;
  return ForEachPart(w, part_bytes, [&](std::string_view held, bool first, bool last, size_t comma) {
    CopyPart(held, first, last, comma, part);
    if (!ParsePart(label, part, last, index, parser, out, &index)) return false;
    ++out->parts;
    return true;
  });
}

// ReadInParts on two threads: each part goes to `second` when it is free,
// else the reading thread parses it itself, each into records of its own;
// they are joined in file order once every part has read cleanly.
template <typename Window>
bool ReadInPartsOnTwoThreads(Window& w, std::string_view label, size_t part_bytes, KinetoRecords* out,
                             od::parser& parser, PaddedBytes& part, PartThread& second) {
  std::vector<KinetoRecords> parts;  // in file order
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  size_t second_has = kNone;  // the part `second` was given and not yet taken
  int given = 0;
  const auto take = [&] {
    if (second_has == kNone) return true;
    const bool ok = second.Take(&parts[second_has]);
    second_has = kNone;
    return ok;
  };
  // Left by an exception (bad_alloc) too: the part given is waited for, so
  // that the next read finds `second` idle.
  struct WaitForSecond {
    PartThread& second;
    const size_t& has;
    ~WaitForSecond() {
      KinetoRecords dropped;
      if (has != kNone) (void)second.Take(&dropped);
    }
  } wait_for_second{second, second_has};
  bool ok = ForEachPart(w, part_bytes, [&](std::string_view held, bool first, bool last, size_t comma) {
    parts.emplace_back();
    if (second.Busy()) {
      CopyPart(held, first, last, comma, part);
      size_t seen = 0;
      return ParsePart(label, part, last, 0, parser, &parts.back(), &seen);
    }
    if (!take()) return false;
    CopyPart(held, first, last, comma, second.part());
    second_has = parts.size() - 1;
    second.Give(label, last);
    ++given;
    return true;
  });
  ok = take() && ok;  // always: `second` reads `label` and its buffer until then
  if (!ok) return false;
  size_t records = out->events.size(), seen = 0;
  for (const KinetoRecords& p : parts) records += p.events.size();
  out->events.reserve(records);
  for (KinetoRecords& p : parts) {
    std::move(p.events.begin(), p.events.end(), std::back_inserter(out->events));
    seen += size_t(p.events_seen);
    if (p.rank) out->rank = p.rank;  // a later distributedInfo wins, as in one read
    if (p.world) out->world = p.world;
  }
  out->events_seen = static_cast<int>(std::min<size_t>(seen, std::numeric_limits<int>::max()));
  out->parts = static_cast<int>(parts.size());
  out->parts_second = given;
  return true;
}

// ReadInParts with `out` put back as it came when it fails.
template <typename Window>
bool ReadInPartsOrNothing(Window& w, std::string_view label, size_t part_bytes, KinetoRecords* out, od::parser& parser,
                          PaddedBytes& part, PartThread* second) {
  const size_t kept = out->events.size();
  const KinetoRecords before{{}, out->events_seen, 0, 0, out->rank, out->world};
  out->parts = 0;
  out->parts_second = 0;
  if (second != nullptr ? ReadInPartsOnTwoThreads(w, label, part_bytes, out, parser, part, *second)
                        : ReadInParts(w, label, part_bytes, out, parser, part)) {
    return true;
  }
  out->events.resize(kept);
  out->events_seen = before.events_seen;
  out->rank = before.rank;
  out->world = before.world;
  out->parts = 0;
  out->parts_second = 0;
  return false;
}

}  // namespace

KinetoParser::KinetoParser(int part_threads) : impl_(std::make_unique<Impl>()) { impl_->part_threads = part_threads; }
KinetoParser::~KinetoParser() = default;

Status ReadKinetoRecords(const PaddedBytes& json, std::string_view label, KinetoRecords* out, KinetoParser* given,
                         size_t part_bytes) {
  Reader reader(label);
  if (json.size() == 0) return reader.Fail("empty file");
  KinetoParser local_parser;
  KinetoParser::Impl& impl = *(given != nullptr ? given : &local_parser)->impl_;
  if (part_bytes > 0 && json.size() / 2 >= part_bytes) {
    MemoryWindow w(json.view());
    if (ReadInPartsOrNothing(w, label, part_bytes, out, impl.parser, impl.part, impl.Second())) return Status::Ok();
  }
  out->parts = 1;  // the whole read starts afresh
  od::document doc;
  const simdjson::padded_string_view view(json.data(), json.size(), json.capacity());
  if (auto e = impl.parser.iterate(view).get(doc)) return reader.JsonFail("the start", e);
  return reader.ReadRoot(doc, out);
}

bool ReadKinetoRecordsInflating(std::string_view gz, std::string_view label, KinetoRecords* out, KinetoParser* given,
                                size_t part_bytes, size_t max_bytes, bool* too_big) {
  if (too_big != nullptr) *too_big = false;
  if (part_bytes == 0 || !GzipWindow::Available() || !IsGzip(gz)) return false;
  KinetoParser local_parser;
  KinetoParser::Impl& impl = *(given != nullptr ? given : &local_parser)->impl_;
  GzipWindow w(gz, max_bytes, impl.window);
  const bool read = ReadInPartsOrNothing(w, label, part_bytes, out, impl.parser, impl.part, impl.Second());
  if (!read && too_big != nullptr) *too_big = w.exceeded();
  return read;
}

}  // namespace braid::importers
