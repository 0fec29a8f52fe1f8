// Reading a preset file (format: presets/README.md).
#include <optional>
#include <unordered_map>

#include "braid/backend_kind.h"
#include "braid/presets.h"
#include "braid/safe_read.h"
#include "braid/toml_fields.h"
#include "braid/toml_reader.h"
#include "dp_preset_file.h"
#include "preset_fields.h"

namespace braid {

bool PresetKey::operator==(const PresetKey& o) const {
  const Workload& a = workload;
  const Workload& b = o.workload;
  return gpu == o.gpu && topology == o.topology && layer == o.layer && pass == o.pass && a.op == b.op && a.m == b.m &&
         a.n == b.n && a.k == b.k && a.dtype == b.dtype && a.tp == b.tp;
}

bool SameSlot(const Preset& a, const Preset& b) { return a.key == b.key && a.backend == b.backend; }

bool DpPresetKey::operator==(const DpPresetKey& o) const {
  return gpu == o.gpu && topology == o.topology && model == o.model && tokens == o.tokens && tp == o.tp && dp == o.dp &&
         zero == o.zero && dtype == o.dtype;
}

bool SameSlot(const DpPreset& a, const DpPreset& b) { return a.key == b.key && a.backend == b.backend; }

namespace {

using preset_fields::BadValue;
using preset_fields::IsIsoDate;

constexpr int64_t kMaxSize = int64_t(1) << 40;

Status ParseConfig(const TomlFields& f, const TomlValue& t, OverlapConfig& c) {
  std::string s;
  BRAID_ASSIGN_OR_RETURN(s, f.String("algorithm"));
  auto a = ParseAlgorithm(s);
  if (!a.ok()) return BadValue(f, t, "algorithm", a.status().message());
  c.algorithm = *a;
  int64_t v = 0;
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("chunks", 1, 1 << 20));
  c.chunks = int(v);
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("streams", 1, 8));
  c.comm_lanes = int(v);
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("comm_sms", 0, 1 << 16));
  c.comm_sms = int(v);
  BRAID_ASSIGN_OR_RETURN(s, f.OptionalString("comm_engine", "sm"));
  auto e = ParseCommEngine(s);
  if (!e.ok()) return BadValue(f, t, "comm_engine", e.status().message());
  c.comm_engine = *e;
  BRAID_ASSIGN_OR_RETURN(s, f.OptionalString("comm_priority", "high"));
  if (s != "high" && s != "normal") return BadValue(f, t, "comm_priority", "must be \"high\" or \"normal\"");
  c.comm_high_priority = s == "high";
  BRAID_ASSIGN_OR_RETURN(s, f.OptionalString("comm_dtype", "auto"));
  auto comm = ParseCommDType(s);
  if (!comm.ok()) return BadValue(f, t, "comm_dtype", comm.status().message());
  c.comm_dtype = *comm;
  bool margin = false;
  BRAID_ASSIGN_OR_RETURN(margin, f.OptionalBool("sm_margin", false));
  c.sm_margin = margin;
  if (t.Find("wgrad_comm_sms") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(v, f.Integer("wgrad_comm_sms", 0, 1 << 16));
    c.wgrad_comm_sms = int(v);
  }
  if (Status knobs = c.ValidateKnobs(); !knobs.ok()) {
    return BadValue(f, t, c.sm_margin ? "sm_margin" : "wgrad_comm_sms", knobs.message());
  }
  c.splits.clear();
  if (const TomlValue* sp = t.Find("splits")) {
    if (sp->kind != TomlValue::Kind::kArray) return BadValue(f, t, "splits", "must be an array of positive integers");
    for (const TomlValue& x : sp->items) {
      if (x.kind != TomlValue::Kind::kInteger || x.integer < 1 || x.integer > (1 << 20)) {
        return BadValue(f, t, "splits", "must be an array of positive integers");
      }
      c.splits.push_back(int(x.integer));
    }
    if (!c.splits.empty() && c.splits.size() != size_t(c.chunks)) {
      return BadValue(f, t, "splits", "must have one weight per chunk");
    }
  }
  return Status::Ok();
}

Status ParseKey(const TomlFields& f, const TomlValue& t, int version, PresetKey& key) {
  BRAID_ASSIGN_OR_RETURN(key.gpu, f.String("gpu"));
  BRAID_ASSIGN_OR_RETURN(key.topology, f.String("topology"));
  BRAID_ASSIGN_OR_RETURN(key.layer, f.OptionalString("layer", ""));
  std::string s;
  if (t.Find("pass") != nullptr) {
    if (version < 2) return BadValue(f, t, "pass", "needs version = 2 (version 1 presets are all fprop)");
    BRAID_ASSIGN_OR_RETURN(s, f.String("pass"));
    auto pass = ParsePass(s);
    if (!pass.ok()) return BadValue(f, t, "pass", pass.status().message());
    key.pass = *pass;
  }
  BRAID_ASSIGN_OR_RETURN(s, f.String("op"));
  auto op = ParseOp(s);
  if (!op.ok()) return BadValue(f, t, "op", op.status().message());
  BRAID_ASSIGN_OR_RETURN(s, f.String("dtype"));
  auto dt = ParseDType(s);
  if (!dt.ok()) return BadValue(f, t, "dtype", dt.status().message());
  Workload& w = key.workload;
  w.op = *op;
  w.dtype = *dt;
  int64_t tp = 0;
  BRAID_ASSIGN_OR_RETURN(tp, f.Integer("tp", 1, 1 << 16));
  w.tp = int(tp);
  BRAID_ASSIGN_OR_RETURN(w.m, f.Integer("m", 1, kMaxSize));
  BRAID_ASSIGN_OR_RETURN(w.n, f.Integer("n", 1, kMaxSize));
  BRAID_ASSIGN_OR_RETURN(w.k, f.Integer("k", 1, kMaxSize));
  return Status::Ok();
}

// bulk and external are backward methods: TE refuses them for any other key.
Status CheckMethodForPass(const TomlFields& f, const TomlValue& t, const Preset& p) {
  const Algorithm a = p.config.algorithm;
  const Pass pass = p.key.pass;
  const Op op = p.key.workload.op;
  if (a == Algorithm::kBulk &&
      !((pass == Pass::kDgrad && op == Op::kGemmRs) || (pass == Pass::kWgrad && op == Op::kAgGemm))) {
    return BadValue(f, t, "algorithm",
                    "bulk is for the backward of a column-parallel layer (pass dgrad with op gemm_rs, or wgrad "
                    "with ag_gemm); this preset is " +
                        std::string(PassName(pass)) + " " + std::string(OpName(op)));
  }
  if (a == Algorithm::kExternal && pass != Pass::kWgrad) {
    return BadValue(f, t, "algorithm",
                    "external is for a row-parallel wgrad (pass wgrad); this preset is " + std::string(PassName(pass)));
  }
  return Status::Ok();
}

Status ParsePreset(const TomlValue& t, std::string_view origin, int version, size_t index, Preset& p) {
  TomlFields f(t, origin, "preset[" + std::to_string(index) + "].");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"gpu",
                                         "topology",
                                         "tp",
                                         "op",
                                         "dtype",
                                         "m",
                                         "n",
                                         "k",
                                         "layer",
                                         "pass",
                                         "algorithm",
                                         "chunks",
                                         "splits",
                                         "streams",
                                         "comm_sms",
                                         "comm_engine",
                                         "comm_priority",
                                         "comm_dtype",
                                         "sm_margin",
                                         "wgrad_comm_sms",
                                         "time_ns",
                                         "speedup_vs_serial",
                                         "speedup_vs_te_default",
                                         "overlap_ratio",
                                         "tail_ns",
                                         "error_band",
                                         "backend",
                                         "simulated",
                                         "braid_version",
                                         "date"}));
  // Required fields, checked up front so that the message names the entry's line.
  for (const char* key :
       {"gpu", "topology", "tp", "op", "dtype", "m", "n", "k", "algorithm", "chunks", "streams", "comm_sms", "time_ns",
        "speedup_vs_serial", "speedup_vs_te_default", "overlap_ratio", "tail_ns", "braid_version", "date"}) {
    if (t.Find(key) == nullptr) return Status::Invalid(f.Where(t) + ": missing field '" + f.Name(key) + "'");
  }
  BRAID_RETURN_IF_ERROR(ParseKey(f, t, version, p.key));
  BRAID_RETURN_IF_ERROR(ParseConfig(f, t, p.config));
  if (version < 2 && (p.config.algorithm == Algorithm::kBulk || p.config.algorithm == Algorithm::kExternal)) {
    return BadValue(f, t, "algorithm", "bulk and external need version = 2");
  }
  if (version < 3 && p.config.algorithm == Algorithm::kDirect) {
    return BadValue(f, t, "algorithm", "direct needs version = 3");
  }
  if (version < 5 && IsUlysses(p.config.algorithm)) {
    return BadValue(f, t, "algorithm", std::string(AlgorithmName(p.config.algorithm)) + " needs version = 5");
  }
  if (version < 4 && (p.config.sm_margin || p.config.wgrad_comm_sms > 0)) {
    return BadValue(f, t, p.config.sm_margin ? "sm_margin" : "wgrad_comm_sms", "needs version = 4");
  }
  BRAID_RETURN_IF_ERROR(CheckMethodForPass(f, t, p));
  BRAID_ASSIGN_OR_RETURN(p.time_ns, f.Positive("time_ns"));
  BRAID_ASSIGN_OR_RETURN(p.speedup_vs_serial, f.Number("speedup_vs_serial", 0, 1e6));
  BRAID_ASSIGN_OR_RETURN(p.speedup_vs_te_default, f.Number("speedup_vs_te_default", 0, 1e6));
  BRAID_ASSIGN_OR_RETURN(p.overlap_ratio, f.Number("overlap_ratio", 0, 1));
  BRAID_ASSIGN_OR_RETURN(p.tail_ns, f.Number("tail_ns", 0, 1e18));
  // An entry without `backend` says where it came from by `simulated`:
  // true is the sim backend's; otherwise no one can tell which hardware
  // measured it, so it is refused rather than guessed.
  if (t.Find("backend") == nullptr) {
    bool simulated = false;
    BRAID_ASSIGN_OR_RETURN(simulated, f.OptionalBool("simulated", false));
    if (!simulated) {
      return Status::Invalid(f.Where(t) + ": missing field '" + f.Name("backend") +
                             "' (only entries marked simulated = true may leave it out)");
    }
    p.backend = BackendKindName(BackendKind::kSim);
  } else {
    BRAID_ASSIGN_OR_RETURN(p.backend, f.String("backend"));
    const std::optional<BackendKind> kind = BackendKindNamed(p.backend);
    if (!kind) return BadValue(f, t, "backend", "must be \"sim\", \"cpu\" or \"cuda\"");
    bool simulated = false;
    BRAID_ASSIGN_OR_RETURN(simulated, f.OptionalBool("simulated", kind == BackendKind::kSim));
    if (simulated != (kind == BackendKind::kSim)) {
      return BadValue(f, t, "simulated", "must be true exactly when backend is \"sim\"");
    }
  }
  if (t.Find("error_band") != nullptr) {
    // The sim's figure alone has an expected error; a measurement has its own spread.
    if (!IsBackend(p.backend, BackendKind::kSim))
      return BadValue(f, t, "error_band", "is a sim figure's: only where backend is \"sim\"");
    BRAID_ASSIGN_OR_RETURN(p.error_band, f.Number("error_band", 0, 1));
  }
  BRAID_ASSIGN_OR_RETURN(p.braid_version, f.String("braid_version"));
  BRAID_ASSIGN_OR_RETURN(p.date, f.String("date"));
  if (!IsIsoDate(p.date)) return BadValue(f, t, "date", "must be an ISO 8601 date (\"2026-11-21T22:00:00Z\")");
  // The rules `run` applies to a config of this op (algorithm x op x dtype
  // x P: direct on gemm_ar, fused on FP8, ...), so that a loader never
  // answers what a run would refuse. Methods of a whole layer (iso, bulk,
  // external) have only their knobs checked here: their rules are the
  // layer's (BuildLayerPlan).
  const Algorithm a = p.config.algorithm;
  const bool layer_method = a == Algorithm::kIso || a == Algorithm::kBulk || a == Algorithm::kExternal;
  Status s = p.key.workload.Validate();
  if (s.ok()) s = layer_method ? p.config.ValidateKnobs() : p.config.Validate(p.key.workload);
  if (s.ok()) s = CheckCommDType(p.key.workload, p.config, p.config.algorithm);
  if (!s.ok()) return Status::Invalid(f.Where(t) + ": preset[" + std::to_string(index) + "]: " + s.message());
  return Status::Ok();
}

// Two entries for one slot would make the answer depend on file order.
Result<PresetFile> RefuseDuplicates(PresetFile file, const TomlValue& list, std::string_view origin) {
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < file.presets.size(); ++i) {
    const Preset& p = file.presets[i];
    const Workload& w = p.key.workload;
    std::string key = p.key.gpu + '\0' + p.key.topology + '\0' + p.key.layer + '\0' + p.backend + '\0' +
                      std::string(PassName(p.key.pass)) + '\0';
    for (int64_t v : {int64_t(w.op), w.m, w.n, w.k, int64_t(w.dtype), int64_t(w.tp)}) key += std::to_string(v) + ',';
    auto [it, fresh] = seen.emplace(std::move(key), i);
    if (fresh) continue;
    TomlFields f(list.items[i], origin, "");
    TomlFields first(list.items[it->second], origin, "");
    return Status::Invalid(f.Where(list.items[i]) + ": preset[" + std::to_string(i) + "] has the same key (" +
                           w.Describe() + " " + std::string(PassName(p.key.pass)) + " on " + p.key.gpu + " / " +
                           p.key.topology + (p.key.layer.empty() ? "" : ", layer " + p.key.layer) + ", backend " +
                           p.backend + ") as preset[" + std::to_string(it->second) + "] at " +
                           first.Where(list.items[it->second]) + ": remove one");
  }
  return file;
}

}  // namespace

Result<PresetFile> ParsePresetFile(std::string_view text, std::string_view origin) {
  auto root = ParseToml(text, origin);
  if (!root.ok()) {
    // Say first what matters most: this is not a preset file at all.
    if (text.find("braid-presets") == std::string_view::npos) {
      return Status::Invalid(std::string(origin) + ": not a Braid preset file (" + root.status().message() + ")");
    }
    return root.status();
  }
  if (root->Find("format") == nullptr) {
    return Status::Invalid(std::string(origin) + ": not a Braid preset file (no format = \"braid-presets\")");
  }
  TomlFields f(*root, origin, "");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"format", "version", "preset", "dp_preset"}));
  std::string format;
  BRAID_ASSIGN_OR_RETURN(format, f.String("format"));
  if (format != "braid-presets") {
    return BadValue(f, *root, "format", "must be \"braid-presets\": not a Braid preset file");
  }
  PresetFile out;
  int64_t version = 0;
  BRAID_ASSIGN_OR_RETURN(version, f.Integer("version", 1, 1 << 30));
  if (version < kOldestPresetFormatVersion || version > kPresetFormatVersion) {
    return BadValue(f, *root, "version",
                    std::to_string(version) + " is not supported (this reader knows versions " +
                        std::to_string(kOldestPresetFormatVersion) + " to " + std::to_string(kPresetFormatVersion) +
                        "; a newer Braid wrote it)");
  }
  out.version = int(version);
  BRAID_ASSIGN_OR_RETURN(out.dp_presets, ParseDpPresets(*root, origin, out.version));
  const TomlValue* list = root->Find("preset");
  if (list == nullptr) return out;  // an empty preset file is valid
  if (list->kind != TomlValue::Kind::kArray) {
    return BadValue(f, *root, "preset", "must be an array of tables ([[preset]])");
  }
  out.presets.resize(list->items.size());
  for (size_t i = 0; i < list->items.size(); ++i) {
    const TomlValue& t = list->items[i];
    if (t.kind != TomlValue::Kind::kTable) {
      return BadValue(f, *root, "preset", "must be an array of tables ([[preset]])");
    }
    BRAID_RETURN_IF_ERROR(ParsePreset(t, origin, out.version, i, out.presets[i]));
  }
  return RefuseDuplicates(std::move(out), *list, origin);
}

#undef BRAID_ASSIGN

Result<PresetFile> LoadPresetFile(const std::string& path) {
  BRAID_ASSIGN_OR_RETURN(auto text, ReadUserFile(path, "preset file"));
  return ParsePresetFile(text, path);
}

}  // namespace braid
