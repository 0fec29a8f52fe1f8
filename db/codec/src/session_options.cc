// A tuning session's options JSON (braid/session_options.h).
#include "braid/session_options.h"

#include <climits>
#include <exception>

#include <nlohmann/json.hpp>

#include "braid/stored_text.h"

namespace braid {

namespace {

using Json = nlohmann::json;

// Each reader leaves `out` as it was when the field is absent and returns
// the problem ("" when none), which the caller turns into one line.
std::string ReadInt(const Json& j, const char* key, int* out) {
  if (!j.contains(key)) return "";
  const Json& v = j[key];
  if (!v.is_number_integer() || v.get<int64_t>() < INT_MIN || v.get<int64_t>() > INT_MAX) {
    return std::string("'") + key + "' that is not an integer";
  }
  *out = int(v.get<int64_t>());
  return "";
}

std::string ReadNumber(const Json& j, const char* key, double* out) {
  if (!j.contains(key)) return "";
  if (!j[key].is_number()) return std::string("'") + key + "' that is not a number";
  *out = j[key].get<double>();
  return "";
}

std::string ReadString(const Json& j, const char* key, std::string* out) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string()) return std::string("'") + key + "' that is not a string";
  *out = j[key].get<std::string>();
  return "";
}

std::string Problem(const Json& j, SessionOptions* o) {
  if (!j.is_object()) return "options JSON that is not an object";
  for (auto [key, field] : {std::pair{"iters", &o->iters}, {"warmup", &o->warmup}, {"budget", &o->budget}}) {
    if (std::string p = ReadInt(j, key, field); !p.empty()) return "an option " + p;
  }
  for (auto [key, field] : {std::pair{"time_budget_s", &o->time_budget_s},
                            {"link_gbps", &o->link_gbps},
                            {"link_latency_us", &o->link_latency_us}}) {
    if (std::string p = ReadNumber(j, key, field); !p.empty()) return "an option " + p;
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) return "an option 'seed' that is not a whole number";
    o->seed = j["seed"].get<uint64_t>();
  }
  for (auto [key, field] : {std::pair{"runtime", &o->runtime}, {"baseline", &o->baseline}}) {
    if (std::string p = ReadString(j, key, field); !p.empty()) return "an option " + p;
  }
  std::string dtype;
  if (std::string p = ReadString(j, "comm_dtype", &dtype); !p.empty()) return "an option " + p;
  if (j.contains("comm_dtype")) {
    Result<DType> d = ParseDType(dtype);
    if (!d.ok()) return "an option 'comm_dtype' that is not a dtype name";
    o->comm_dtype = *d;
  }
  return "";
}

}  // namespace

std::string EncodeSessionOptions(const SessionOptions& o) {
  // The types are part of the text (2 and 2.0 differ), and the tuner
  // compares texts: each field keeps the type it has always been written in.
  Json j{{"iters", o.iters},
         {"warmup", o.warmup},
         {"budget", o.budget},
         {"time_budget_s", o.time_budget_s},
         {"seed", o.seed},
         {"link_gbps", o.link_gbps},
         {"link_latency_us", o.link_latency_us}};
  // Only when set, so a session recorded before the option existed resumes.
  if (o.comm_dtype.has_value()) j["comm_dtype"] = DTypeName(*o.comm_dtype);
  if (!o.runtime.empty()) j["runtime"] = o.runtime;
  if (!o.baseline.empty()) j["baseline"] = o.baseline;
  // A path need not be UTF-8: U+FFFD for what is not, as run records do.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<SessionOptions> DecodeSessionOptions(std::string_view text, std::string_view where) {
  const Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return DamagedStore(where, "options JSON that does not parse");
  SessionOptions o;
  try {
    if (std::string problem = Problem(j, &o); !problem.empty()) return DamagedStore(where, problem);
  } catch (const std::exception& e) {  // nlohmann's accessors; not expected after the type checks
    return DamagedStore(where, std::string("options JSON that does not parse: ") + e.what());
  }
  return o;
}

}  // namespace braid
