// TE's keys, their defaults, and the mapping between a key's options and a
// Braid config (braid/te_ub_cfgs.h).
#include <optional>
#include <string>

#include "braid/comm_sms_effect.h"
#include "braid/name_table.h"
#include "braid/te_ub_cfgs.h"

namespace braid {

namespace {
constexpr NameTable<TeMethod, 4> kTeMethodNames{{{TeMethod::kRingExchange, "ring_exchange"},
                                                 {TeMethod::kPipeline, "pipeline"},
                                                 {TeMethod::kBulk, "bulk"},
                                                 {TeMethod::kExternal, "external"}}};
static_assert(IsOneToOne(kTeMethodNames));
}  // namespace

std::string_view TeMethodName(TeMethod m) { return NameIn(kTeMethodNames, m); }

// TE's own wording ("is not a TE overlap method"), which bad-input tests and
// users' scripts already match, with the names from the table.
Result<TeMethod> ParseTeMethod(std::string_view name) {
  if (std::optional<TeMethod> m = ValueNamed(kTeMethodNames, name)) return *m;
  return Status::Invalid("'" + OneLine(name) + "' is not a TE overlap method (" + NamesIn(kTeMethodNames) + ")");
}

namespace {

constexpr TeKey kKeys[] = {
    {"qkv_fprop", "qkv", Pass::kFprop, true},        {"proj_fprop", "out_proj", Pass::kFprop, false},
    {"fc1_fprop", "fc1", Pass::kFprop, true},        {"fc2_fprop", "fc2", Pass::kFprop, false},
    {"fc2_dgrad", "fc2", Pass::kDgrad, false},       {"fc2_wgrad", "fc2", Pass::kWgrad, false},
    {"fc1_dgrad", "fc1", Pass::kDgrad, true},        {"fc1_wgrad", "fc1", Pass::kWgrad, true},
    {"proj_dgrad", "out_proj", Pass::kDgrad, false}, {"proj_wgrad", "out_proj", Pass::kWgrad, false},
    {"qkv_dgrad", "qkv", Pass::kDgrad, true},        {"qkv_wgrad", "qkv", Pass::kWgrad, true},
};

// A key whose GEMM gathers its input through the userbuffer (TE's
// layers_all_gather_overlap, before a column dgrad is switched): fprop of
// a column layer, dgrad of a row layer, and the bulk pair's dgrad.
bool GathersByDefault(const TeKey& k) {
  if (k.pass == Pass::kFprop) return k.column;
  if (k.pass == Pass::kDgrad) return true;
  return !k.column;  // row wgrads are on TE's list; column wgrads reduce-scatter
}

}  // namespace

std::span<const TeKey> TeKeys() { return kKeys; }

const TeKey* FindTeKey(std::string_view name) {
  for (const TeKey& k : kKeys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const TeKey* TeKeyOfOp(std::string_view op) {
  // Forward phases name a GEMM op after its linear, train after linear.pass.
  const size_t dot = op.find('.');
  const std::string_view linear = op.substr(0, dot);
  Pass pass = Pass::kFprop;
  if (dot != std::string_view::npos) {
    Result<Pass> p = ParsePass(op.substr(dot + 1));
    if (!p.ok()) return nullptr;
    pass = *p;
  }
  for (const TeKey& k : kKeys) {
    if (k.linear == linear && k.pass == pass) return &k;
  }
  return nullptr;
}

TeMethod TeDefaultMethod(const TeKey& k) {
  if (k.pass == Pass::kWgrad) return k.column ? TeMethod::kBulk : TeMethod::kExternal;
  if (k.pass == Pass::kDgrad && k.column) return TeMethod::kBulk;
  if (k.pass == Pass::kFprop && !k.column) return TeMethod::kPipeline;
  return TeMethod::kRingExchange;
}

std::string TeMethodRefusal(const TeKey& k, TeMethod method) {
  if (method == TeMethod::kBulk && !(k.column && k.pass != Pass::kFprop)) {
    return "bulk is TE's overlap of a column layer's dgrad and wgrad (qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad) "
           "only";
  }
  const bool row_wgrad = !k.column && k.pass == Pass::kWgrad;
  if (row_wgrad && method != TeMethod::kExternal) return "TE takes only external for a row layer's wgrad";
  if (!row_wgrad && method == TeMethod::kExternal) {
    return "external is for proj_wgrad and fc2_wgrad only (fed by their dgrad's ring_exchange)";
  }
  if (k.column && k.pass == Pass::kWgrad && method != TeMethod::kBulk) {
    return "TE overlaps a column layer's wgrad only in bulk beside its dgrad";
  }
  return {};
}

TeOptions TeDefaultOptions(const TeKey& k, TeMethod method, int tp) {
  const bool ring = method == TeMethod::kRingExchange;
  // A column dgrad given another method than bulk reduce-scatters its
  // output instead (initialize_ub moves it between its lists).
  const bool switched_dgrad = k.column && k.pass == Pass::kDgrad && method != TeMethod::kBulk;
  TeOptions o;
  o.method = method;
  o.is_reduce_scatter = switched_dgrad || (k.pass == Pass::kFprop && !k.column) || (k.column && k.pass == Pass::kWgrad);
  o.num_sm = ring ? 1 : 16;
  o.cga_size = ring ? 1 : 2;
  o.set_sm_margin = ring ? 0 : 1;
  o.num_splits = ring ? tp : 4;
  o.aggregate = 0;
  o.atomic_gemm = 0;
  o.use_ce = 1;
  o.fp8_buf = GathersByDefault(k) && !switched_dgrad ? 1 : 0;
  o.pipeline_rs_overlap_first_gemm = 0;
  return o;
}

namespace {

// comm above the GEMM unless the file put them level (or the GEMM above).
bool CommHigh(const TeOptions& o) {
  if (!o.comm_priority && !o.gemm_priority) return true;
  // One of the two given: the other keeps TE's extreme, which is above or
  // below any value the device takes.
  if (!o.gemm_priority) return true;
  if (!o.comm_priority) return false;
  return *o.comm_priority < *o.gemm_priority;
}

}  // namespace

OverlapConfig TeConfigOf(const TeOptions& o, const Workload& w) {
  OverlapConfig c;
  c.comm_lanes = 1;
  c.comm_high_priority = CommHigh(o);
  c.comm_sms = o.num_sm;
  c.sm_margin = o.set_sm_margin != 0;
  switch (o.method) {
    case TeMethod::kRingExchange:
      // TE's ring_exchange all-gather passes blocks around the ring; its
      // reduce-scatter sends each partial straight to its owner (direct).
      c.algorithm = w.op == Op::kAgGemm ? Algorithm::kRing : Algorithm::kDirect;
      c.comm_engine = o.use_ce ? CommEngine::kCopyEngine : CommEngine::kSm;
      break;
    case TeMethod::kPipeline:
      c.algorithm = Algorithm::kChunked;
      c.chunks = o.num_splits;
      break;
    case TeMethod::kBulk:
      c.algorithm = Algorithm::kBulk;
      break;
    case TeMethod::kExternal:
      // No kernel of its own: its dgrad's ring feeds it.
      c = OverlapConfig{};
      c.algorithm = Algorithm::kExternal;
      break;
  }
  // A budget that changes nothing (a copy-engine all-gather without a
  // margin holds no SMs) is not recorded, as no Braid config records one.
  if (!CommSmsTakeEffect(c, w.op)) c.comm_sms = 0;
  return c;
}

namespace {

Status NotTe(const TeKey& key, const OverlapConfig& c, const std::string& why) {
  return Status::Invalid(std::string(key.name) + ": " + c.Describe() + " is not expressible in TE: " + why);
}

}  // namespace

Result<TeOptions> TeOptionsOf(const OverlapConfig& c, const TeKey& key, const Workload& w, int tp) {
  TeMethod method = TeMethod::kRingExchange;
  const bool gathers = w.op == Op::kAgGemm;
  switch (c.algorithm) {
    case Algorithm::kRing:
      if (!gathers) return NotTe(key, c, "TE's ring_exchange reduce-scatter sends each partial to its owner (direct)");
      method = TeMethod::kRingExchange;
      break;
    case Algorithm::kDirect:
      if (gathers) return NotTe(key, c, "TE's ring_exchange all-gather passes blocks around a ring (ring)");
      method = TeMethod::kRingExchange;
      break;
    case Algorithm::kChunked:
      if (gathers) return NotTe(key, c, "TE's pipeline method is for reduce-scatters only");
      method = TeMethod::kPipeline;
      break;
    case Algorithm::kBulk:
      method = TeMethod::kBulk;
      break;
    case Algorithm::kExternal:
      method = TeMethod::kExternal;
      break;
    case Algorithm::kA2a:
    case Algorithm::kA2aDirect:
      return NotTe(key, c,
                   "Ulysses sequence parallelism (replicated weights, all-to-alls) has no TE method; TE's "
                   "userbuffers overlap tensor-parallel collectives (ring_exchange, pipeline, bulk, external)");
    default:
      return NotTe(key, c,
                   std::string(AlgorithmName(c.algorithm)) + " is not a method TE offers (" +
                       "ring_exchange, pipeline, bulk, external)");
  }
  // The key's own rules (initialize_ub).
  if (const std::string why = TeMethodRefusal(key, method); !why.empty()) return NotTe(key, c, why);
  TeOptions o = TeDefaultOptions(key, method, tp);
  if (method == TeMethod::kExternal) {
    if (c != TeConfigOf(o, w)) return NotTe(key, c, "external takes no knobs of its own");
    return o;
  }
  if (c.comm_lanes != 1) return NotTe(key, c, "TE runs one comm stream per overlap (streams=1)");
  if (c.comm_dtype.has_value()) return NotTe(key, c, "TE's buffers move the GEMM's own dtypes (fp8_buf as TE sets it)");
  // A budget that changes nothing (a copy-engine all-gather with no
  // margin holds no SMs) is TE's default count: the same run.
  const bool inert = !CommSmsTakeEffect(c, w.op);
  const int num_sm = inert && c.comm_sms == 0 ? o.num_sm : c.comm_sms;
  OverlapConfig want = c;  // what TeConfigOf must give back
  if (inert) want.comm_sms = 0;
  if (num_sm < 1 || num_sm > kTeMaxCommSms) {
    return NotTe(key, c,
                 "TE's num_sm is a count of 1 to " + std::to_string(kTeMaxCommSms) + " SMs (comm_sms " +
                     std::to_string(num_sm) + (num_sm == 0 ? ", the backend's default" : "") + ")");
  }
  if (c.wgrad_comm_sms > kTeMaxCommSms) {
    return NotTe(key, c, "the wgrad's num_sm is at most " + std::to_string(kTeMaxCommSms));
  }
  if (method == TeMethod::kPipeline) {
    if (!c.splits.empty()) return NotTe(key, c, "TE's pipeline splits evenly, by num_splits alone");
    if (c.comm_engine != CommEngine::kSm) return NotTe(key, c, "TE's pipeline reduce-scatter runs on SMs (use_ce)");
    o.num_splits = c.chunks;
  } else if (c.chunks != 1 || !c.splits.empty()) {
    return NotTe(key, c, std::string(TeMethodName(method)) + " takes no sub-chunks");
  }
  if (method == TeMethod::kBulk && c.comm_engine != CommEngine::kSm) {
    return NotTe(key, c, "TE's bulk collectives run on SMs (use_ce)");
  }
  o.num_sm = num_sm;
  o.set_sm_margin = c.sm_margin ? 1 : 0;
  if (method == TeMethod::kRingExchange) o.use_ce = c.comm_engine == CommEngine::kCopyEngine ? 1 : 0;
  if (!c.comm_high_priority) {
    o.comm_priority = 0;  // level with the GEMM: 0 is every device's least priority
    o.gemm_priority = 0;
  }
  // The options must run the config back (wgrad_comm_sms travels in the
  // wgrad key, which its own config then sets).
  OverlapConfig back = TeConfigOf(o, w);
  back.wgrad_comm_sms = c.wgrad_comm_sms;
  if (back != want)
    return NotTe(key, c, "its knobs do not all have a TE option (it would run " + back.Describe() + ")");
  return o;
}

}  // namespace braid
