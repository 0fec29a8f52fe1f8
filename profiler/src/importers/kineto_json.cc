// Reads a Kineto trace with simdjson's On-Demand API: one forward pass, each
// event's fields taken in document order, values we do not need skipped.
#include <simdjson.h>

#include <cmath>
#include <limits>

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

 private:
  Status ReadEvents(od::array events, KinetoRecords* out);
  Status ReadEvent(od::object ev, size_t index, KinetoRecords* out);
  Status ReadArgs(od::object args, size_t index, KinetoRecord* r);
  Status ReadDistributedInfo(od::object info, KinetoRecords* out);

  std::string_view label_;
};

std::string EventWhere(size_t index) { return "traceEvents[" + std::to_string(index) + "]"; }

KinetoCat CategoryOf(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return KinetoCat::kKernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return KinetoCat::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return KinetoCat::kMemset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return KinetoCat::kRuntime;
  if (cat == "cuda_sync") return KinetoCat::kSync;
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
    if (key == "traceEvents") {
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
  size_t index = 0;
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
  return Status::Ok();
}

Status Reader::ReadEvent(od::object ev, size_t index, KinetoRecords* out) {
  KinetoRecord r;
  std::string_view ph, name, cat;
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
      if (!e) BRAID_RETURN_IF_ERROR(ReadArgs(args, index, &r));
    }
    if (e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_ERROR) {
      return Fail(where() + "." + std::string(key) + " has the wrong type");
    }
    if (e) return JsonFail(where() + "." + std::string(key), e);
  }
  if (ph != "X") return Status::Ok();  // metadata, flows, instants: not used
  r.cat = CategoryOf(cat);
  // The CPU-side step range; the GPU copy ("gpu_user_annotation") is later.
  if (name.starts_with("ProfilerStep#") && cat != "gpu_user_annotation") r.cat = KinetoCat::kStep;
  if (r.cat == KinetoCat::kOther && !r.has_correlation) return Status::Ok();
  if (!have_ts) return Fail(where() + " (a complete event) has no ts");
  if (r.dur < 0) r.dur = 0;
  if (!UsInRange(r.ts) || !UsInRange(r.dur) || !UsInRange(r.ts + r.dur)) {
    return Fail(where() + " has a timestamp out of range");
  }
  if (r.cat != KinetoCat::kOther) r.name = name;
  out->events.push_back(std::move(r));
  return Status::Ok();
}

Status Reader::ReadArgs(od::object args, size_t index, KinetoRecord* r) {
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
    if (field.value().get_int64().get(n) != simdjson::SUCCESS || n < 0 || n > (1 << 24)) {
      return Fail("distributedInfo." + std::string(key) + " is not a valid integer");
    }
    (key == "rank" ? out->rank : out->world) = static_cast<int>(n);
  }
  return Status::Ok();
}

}  // namespace

struct KinetoParser::Impl {
  od::parser parser;
};

KinetoParser::KinetoParser() : impl_(std::make_unique<Impl>()) {}
KinetoParser::~KinetoParser() = default;

Status ReadKinetoRecords(const PaddedBytes& json, std::string_view label, KinetoRecords* out, KinetoParser* given) {
  Reader reader(label);
  if (json.size() == 0) return reader.Fail("empty file");
  KinetoParser local_parser;
  od::parser& parser = (given != nullptr ? given : &local_parser)->impl_->parser;
  od::document doc;
  const simdjson::padded_string_view view(json.data(), json.size(), json.capacity());
  if (auto e = parser.iterate(view).get(doc)) return reader.JsonFail("the start", e);
  return reader.ReadRoot(doc, out);
}

}  // namespace braid::importers
