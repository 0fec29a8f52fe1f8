// Run and trial config JSON (braid/stored_text.h).
#include <climits>
#include <exception>

#include "braid/stored_text.h"

namespace braid {

namespace {

using Json = nlohmann::json;

Result<int> IntField(const Json& j, const char* key, int fallback) {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  if (!v.is_number_integer() || v.get<int64_t>() < INT_MIN || v.get<int64_t>() > INT_MAX) {
    return Status::Invalid(std::string("'") + key + "' is not an integer");
  }
  return int(v.get<int64_t>());
}

Result<std::string> StringField(const Json& j, const char* key, const char* fallback) {
  if (!j.contains(key)) return std::string(fallback);
  if (!j[key].is_string()) return Status::Invalid(std::string("'") + key + "' is not a string");
  return j[key].get<std::string>();
}

Result<OverlapConfig> ParseConfig(const Json& j) {
  if (!j.is_object()) return Status::Invalid("the config is not an object");
  if (!j.contains("algorithm")) return Status::Invalid("'algorithm' is missing");
  OverlapConfig c;
  BRAID_ASSIGN_OR_RETURN(auto algorithm, StringField(j, "algorithm", ""));
  BRAID_ASSIGN_OR_RETURN(auto a, ParseAlgorithm(algorithm));
  c.algorithm = a;
  BRAID_ASSIGN_OR_RETURN(auto chunks, IntField(j, "chunks", 1));
  c.chunks = chunks;
  if (j.contains("splits")) {
    if (!j["splits"].is_array()) return Status::Invalid("'splits' is not an array of integers");
    for (const Json& s : j["splits"]) {
      if (!s.is_number_integer() || s.get<int64_t>() < 1 || s.get<int64_t>() > INT_MAX) {
        return Status::Invalid("'splits' is not an array of positive integers");
      }
      c.splits.push_back(int(s.get<int64_t>()));
    }
  }
  BRAID_ASSIGN_OR_RETURN(auto streams, IntField(j, "streams", 1));
  c.comm_lanes = streams;
  BRAID_ASSIGN_OR_RETURN(auto sms, IntField(j, "comm_sms", 0));
  c.comm_sms = sms;
  BRAID_ASSIGN_OR_RETURN(auto engine, StringField(j, "comm_engine", "sm"));
  BRAID_ASSIGN_OR_RETURN(auto e, ParseCommEngine(engine));
  c.comm_engine = e;
  BRAID_ASSIGN_OR_RETURN(auto priority, StringField(j, "comm_priority", "high"));
  if (priority != "high" && priority != "normal") return Status::Invalid("'comm_priority' is not high or normal");
  c.comm_high_priority = priority == "high";
  BRAID_ASSIGN_OR_RETURN(auto comm_dtype, StringField(j, "comm_dtype", "auto"));
  Result<std::optional<DType>> comm = ParseCommDType(comm_dtype);
  if (!comm.ok()) return Status::Invalid("'comm_dtype' is not auto or a dtype name");
  c.comm_dtype = *comm;
  if (j.contains("sm_margin")) {
    if (!j["sm_margin"].is_boolean()) return Status::Invalid("'sm_margin' is not true or false");
    c.sm_margin = j["sm_margin"].get<bool>();
  }
  BRAID_ASSIGN_OR_RETURN(auto wgrad_sms, IntField(j, "wgrad_comm_sms", 0));
  c.wgrad_comm_sms = wgrad_sms;
  BRAID_RETURN_IF_ERROR(c.ValidateKnobs());
  return c;
}

}  // namespace

std::string DamagedStorePrefix(std::string_view where) { return "damaged store: " + std::string(where); }

Status DamagedStore(std::string_view where, std::string_view problem) {
  return Status::Invalid(DamagedStorePrefix(where) + " has " + std::string(problem));
}

Json ConfigJson(const OverlapConfig& c) {
  Json j = {{"algorithm", AlgorithmName(c.algorithm)},
            {"chunks", c.chunks},
            {"splits", c.splits},
            {"streams", c.comm_lanes},
            {"comm_sms", c.comm_sms},
            {"comm_engine", CommEngineName(c.comm_engine)},
            {"comm_priority", c.comm_high_priority ? "high" : "normal"}};
  // Written only when set, so a config without it reads back the same.
  if (c.comm_dtype.has_value()) j["comm_dtype"] = DTypeName(*c.comm_dtype);
  if (c.sm_margin) j["sm_margin"] = true;
  if (c.wgrad_comm_sms > 0) j["wgrad_comm_sms"] = c.wgrad_comm_sms;
  return j;
}

Result<OverlapConfig> ConfigFromJson(const Json& j) {
  try {
    return ParseConfig(j);
  } catch (const std::exception& e) {  // nlohmann's accessors; not expected after the type checks
    return Status::Invalid(std::string("the config does not parse: ") + e.what());
  }
}

Result<StoredConfig> DecodeConfigText(std::string_view text, bool allow_empty, std::string_view where) {
  StoredConfig out;
  out.json = Json::parse(text, nullptr, false);
  if (out.json.is_discarded()) return DamagedStore(where, "config JSON that does not parse");
  if (allow_empty && out.json.is_object() && out.json.empty()) return out;
  Result<OverlapConfig> c = ConfigFromJson(out.json);
  if (!c.ok()) return DamagedStore(where, "a config JSON that is not Braid's: " + c.status().message());
  out.config = *c;
  return out;
}

std::string EncodeTrialConfig(const TrialConfig& t) {
  Json j = ConfigJson(t.config);
  j["target"] = t.target;
  j["stage"] = t.stage;
  if (t.warmup) j["warmup"] = *t.warmup;
  return j.dump();
}

Result<TrialConfig> DecodeTrialConfig(std::string_view text, std::string_view where) {
  BRAID_ASSIGN_OR_RETURN(auto stored, DecodeConfigText(text, /*allow_empty=*/false, where));
  const Json& j = stored.json;
  TrialConfig t;
  t.config = *stored.config;
  if (j.contains("warmup")) {
    if (!j["warmup"].is_number_integer() || j["warmup"].get<int64_t>() < 0) {
      return DamagedStore(where, "a config whose warm-up count is not a whole number");
    }
    t.warmup = j["warmup"].get<int64_t>();
  }
  for (auto [key, field] : {std::pair{"target", &t.target}, {"stage", &t.stage}}) {
    if (!j.contains(key)) continue;  // trials stored before these were kept
    if (!j[key].is_string()) return DamagedStore(where, std::string("a config whose '") + key + "' is not a string");
    *field = j[key].get<std::string>();
  }
  return t;
}

}  // namespace braid
