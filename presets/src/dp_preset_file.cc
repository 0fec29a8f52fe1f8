#include "dp_preset_file.h"

#include "braid/backend_kind.h"
#include "braid/toml_fields.h"
#include "preset_fields.h"

namespace braid {

namespace {

using preset_fields::BadValue;
using preset_fields::IsIsoDate;

Status ParseKey(const TomlFields& f, const TomlValue& t, DpPresetKey& k) {
  BRAID_ASSIGN_OR_RETURN(k.gpu, f.String("gpu"));
  BRAID_ASSIGN_OR_RETURN(k.topology, f.String("topology"));
  BRAID_ASSIGN_OR_RETURN(k.model, f.String("model"));
  BRAID_ASSIGN_OR_RETURN(k.tokens, f.Integer("tokens", 1, int64_t(1) << 40));
  int64_t v = 0;
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("tp", 1, 1 << 16));
  k.tp = int(v);
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("dp", 1, 1 << 20));
  k.dp = int(v);
  std::string s;
  BRAID_ASSIGN_OR_RETURN(s, f.String("zero"));
  auto zero = ParseZeroStage(s);
  if (!zero.ok()) return BadValue(f, t, "zero", zero.status().message());
  k.zero = *zero;
  BRAID_ASSIGN_OR_RETURN(s, f.String("dtype"));
  auto dtype = ParseDType(s);
  if (!dtype.ok()) return BadValue(f, t, "dtype", dtype.status().message());
  k.dtype = *dtype;
  return Status::Ok();
}

Status ParseSetup(const TomlFields& f, const TomlValue& t, DpPreset& p) {
  std::string s;
  BRAID_ASSIGN_OR_RETURN(s, f.String("schedule"));
  auto schedule = ParseDpSchedule(s);
  if (!schedule.ok()) return BadValue(f, t, "schedule", schedule.status().message());
  p.schedule = *schedule;
  BRAID_ASSIGN_OR_RETURN(p.bucket_params, f.Integer("bucket_params", 1, int64_t(1) << 50));
  const bool decomposed = p.schedule == DpSchedule::kDecomposed;
  for (const char* key : {"decomposed_layers", "decomposition", "decomposition_chunks"}) {
    if (!decomposed && t.Find(key) != nullptr) return BadValue(f, t, key, "applies to schedule \"decomposed\" only");
  }
  if (decomposed) {
    int64_t v = 0;
    BRAID_ASSIGN_OR_RETURN(v, f.Integer("decomposed_layers", -1, 1 << 20));
    p.decomposed_layers = int(v);
    BRAID_ASSIGN_OR_RETURN(s, f.String("decomposition"));
    auto a = ParseAlgorithm(s);
    if (!a.ok()) return BadValue(f, t, "decomposition", a.status().message());
    if (!PlansDpOps(*a)) {
      return BadValue(f, t, "decomposition", "must be serial, chunked, ring, bidir_ring or direct");
    }
    p.decomposition = *a;
    BRAID_ASSIGN_OR_RETURN(v, f.Integer("decomposition_chunks", 1, 1 << 20));
    p.decomposition_chunks = int(v);
  }
  int64_t v = 0;
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("prefetch", 1, 1 << 20));
  p.prefetch = int(v);
  BRAID_ASSIGN_OR_RETURN(v, f.Integer("comm_sms", 0, 1 << 16));
  p.comm_sms = int(v);
  return Status::Ok();
}

Result<DpPreset> ParseEntry(const TomlValue& t, std::string_view origin, size_t i) {
  TomlFields f(t, origin, "dp_preset[" + std::to_string(i) + "].");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"gpu",
                                         "topology",
                                         "model",
                                         "tokens",
                                         "tp",
                                         "dp",
                                         "zero",
                                         "dtype",
                                         "schedule",
                                         "bucket_params",
                                         "decomposed_layers",
                                         "decomposition",
                                         "decomposition_chunks",
                                         "prefetch",
                                         "comm_sms",
                                         "step_ns",
                                         "speedup_vs_megatron",
                                         "backend",
                                         "braid_version",
                                         "date"}));
  DpPreset p;
  BRAID_RETURN_IF_ERROR(ParseKey(f, t, p.key));
  BRAID_RETURN_IF_ERROR(ParseSetup(f, t, p));
  BRAID_ASSIGN_OR_RETURN(p.step_ns, f.Positive("step_ns"));
  BRAID_ASSIGN_OR_RETURN(p.speedup_vs_megatron, f.Number("speedup_vs_megatron", 0, 1e6));
  BRAID_ASSIGN_OR_RETURN(p.backend, f.String("backend"));
  if (!BackendKindNamed(p.backend)) {
    return BadValue(f, t, "backend", "must be \"sim\", \"cpu\" or \"cuda\"");
  }
  BRAID_ASSIGN_OR_RETURN(p.braid_version, f.String("braid_version"));
  BRAID_ASSIGN_OR_RETURN(p.date, f.String("date"));
  if (!IsIsoDate(p.date)) return BadValue(f, t, "date", "must be an ISO 8601 date (\"2026-11-29\" or with a time)");
  return p;
}

}  // namespace

Result<std::vector<DpPreset>> ParseDpPresets(const TomlValue& root, std::string_view origin, int version) {
  std::vector<DpPreset> out;
  const TomlValue* list = root.Find("dp_preset");
  if (list == nullptr) return out;
  TomlFields f(root, origin, "");
  if (version < 5) return BadValue(f, root, "dp_preset", "needs version = 5");
  if (list->kind != TomlValue::Kind::kArray)
    return BadValue(f, root, "dp_preset", "must be an array of tables ([[dp_preset]])");
  for (size_t i = 0; i < list->items.size(); ++i) {
    const TomlValue& t = list->items[i];
    if (t.kind != TomlValue::Kind::kTable) {
      return BadValue(f, root, "dp_preset", "must be an array of tables ([[dp_preset]])");
    }
    BRAID_ASSIGN_OR_RETURN(DpPreset p, ParseEntry(t, origin, i));
    for (size_t j = 0; j < out.size(); ++j) {
      if (!SameSlot(out[j], p)) continue;
      return Status::Invalid(f.Where(t) + ": dp_preset[" + std::to_string(i) + "] has the same key as dp_preset[" +
                             std::to_string(j) + "] at " + f.Where(list->items[j]) + ": remove one");
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace braid
