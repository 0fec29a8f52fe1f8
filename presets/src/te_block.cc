// A user's ub_cfgs resolved for one block as TE's initialize_ub resolves it
// (braid/te_ub_cfgs.h).
#include <algorithm>
#include <string>

#include "braid/te_ub_cfgs.h"

namespace braid {

namespace {

std::string Flag(int v) { return std::to_string(v); }

// The method a key runs with: the file's, else TE's default.
TeMethod MethodOf(const TeKey& key, const TeUbCfgsFile* file) {
  const TeGivenOptions* g = file ? file->Find(key.name) : nullptr;
  return g && g->method ? *g->method : TeDefaultMethod(key);
}

// TE's own refusals (initialize_ub / add_ub), and what Braid refuses
// beside them, for one key; `dgrad_method`: for a wgrad key, its dgrad's.
Status CheckKey(const TeKey& key, const TeOptions& o, const TeGivenOptions* g, TeMethod dgrad_method, int tp,
                const LayerOp* op, int gpu_sms, bool fp8) {
  const std::string k(key.name);
  const std::string method(TeMethodName(o.method));
  const bool gathers = !o.is_reduce_scatter;
  if (o.method == TeMethod::kPipeline && gathers) {
    return Status::Invalid(k +
                           ": method pipeline is not supported for an all-gather (TE: \"`pipeline` overlap method "
                           "is not supported for AllGather\")");
  }
  if (const std::string why = TeMethodRefusal(key, o.method); !why.empty()) {
    return Status::Invalid(k + ": method " + method + ": " + why);
  }
  if (key.pass == Pass::kWgrad && !key.column && dgrad_method != TeMethod::kRingExchange) {
    return Status::Invalid(k +
                           ": external needs its dgrad on ring_exchange (TE: \"the external gemm ... is not "
                           "using `ring_exchange` overlap method\")");
  }
  if (g && g->is_reduce_scatter && *g->is_reduce_scatter != TeDefaultOptions(key, o.method, tp).is_reduce_scatter) {
    return Status::Invalid(k + ": is_reduce_scatter " + Flag(*g->is_reduce_scatter) + " contradicts the key: " + k +
                           (o.is_reduce_scatter ? " reduce-scatters" : " all-gathers") + " with method " + method);
  }
  if (o.atomic_gemm) {
    return Status::Invalid(k +
                           ": atomic_gemm 1: TE's atomic GEMM overlap needs cuBLAS's atomic-sync matmul "
                           "attributes, which CUDA 13 / cuBLAS 13 removed (TE builds it only for CUDA < 13)");
  }
  if (o.num_sm < 1 || o.num_sm > kTeMaxCommSms || o.num_sm >= gpu_sms) {
    return Status::Invalid(k + ": num_sm " + std::to_string(o.num_sm) + " is outside 1.." +
                           std::to_string(std::min(kTeMaxCommSms, gpu_sms - 1)) +
                           " (userbuffers' comm kernels take at most " + std::to_string(kTeMaxCommSms) +
                           " SMs, NVTE_MAX_SMS, and must leave the GEMM some of the GPU's " + std::to_string(gpu_sms) +
                           ")");
  }
  if (o.cga_size < 1 || o.cga_size > 8) {
    return Status::Invalid(k + ": cga_size " + std::to_string(o.cga_size) +
                           " is outside 1..8 (the portable thread-block cluster sizes)");
  }
  if (o.comm_priority && (*o.comm_priority < -1000 || *o.comm_priority > 1000)) {
    return Status::Invalid(k + ": comm_priority " + std::to_string(*o.comm_priority) + " is not a stream priority");
  }
  if (o.gemm_priority && (*o.gemm_priority < -1000 || *o.gemm_priority > 1000)) {
    return Status::Invalid(k + ": gemm_priority " + std::to_string(*o.gemm_priority) + " is not a stream priority");
  }
  if (o.method == TeMethod::kPipeline) {
    if (o.num_splits < 1) {
      return Status::Invalid(k + ": num_splits " + std::to_string(o.num_splits) + " must be at least 1");
    }
    // Each split is reduce-scattered whole: every rank gets M/(splits·P) rows of it.
    if (op != nullptr && (op->gemm.m % tp != 0 || (op->gemm.m / tp) % o.num_splits != 0)) {
      return Status::Invalid(k + ": num_splits " + std::to_string(o.num_splits) + " does not divide the " +
                             std::to_string(op->gemm.m / std::max(tp, 1)) +
                             " rows each rank gets of the GEMM's output (M/tp; TE's pipeline cuts M evenly and "
                             "reduce-scatters each split)");
    }
  } else if (g && g->num_splits && *g->num_splits < 1) {
    return Status::Invalid(k + ": num_splits " + std::to_string(*g->num_splits) + " must be at least 1");
  }
  if (fp8 && o.fp8_buf && o.is_reduce_scatter) {
    return Status::Invalid(k + ": fp8_buf 1 makes TE reduce-scatter FP8 partial sums, which Braid's " +
                           (o.method == TeMethod::kPipeline ? std::string("chunked") : std::string("direct")) +
                           " plan does not model (it reduces bf16 partials): set fp8_buf 0");
  }
  return Status::Ok();
}

// What the sim's figure does not follow, said once per key where set.
std::vector<std::string> NotesOf(const TeOptions& o, const TeOptions& def, const TeGivenOptions* g, int tp, bool fp8) {
  std::vector<std::string> n;
  if (o.cga_size != def.cga_size) {
    n.push_back("cga_size " + std::to_string(o.cga_size) + ": kept; the sim's figure does not change with it");
  }
  if (o.aggregate) {
    n.push_back("aggregate 1: kept; the sim prices the plain ring_exchange (2-block steps not modelled)");
  }
  if (o.pipeline_rs_overlap_first_gemm) {
    n.push_back(
        "pipeline_rs_overlap_first_gemm 1: kept; the sim's figure does not change with it (launch order "
        "only)");
  }
  if (o.method == TeMethod::kRingExchange && g && g->num_splits && *g->num_splits != tp) {
    n.push_back("num_splits " + std::to_string(*g->num_splits) +
                ": ignored, as TE's ring_exchange takes one step per "
                "rank (" +
                std::to_string(tp) + ")");
  }
  if ((o.method == TeMethod::kPipeline || o.method == TeMethod::kBulk) && g && g->use_ce && *g->use_ce == 0) {
    n.push_back("use_ce 0: ignored, as TE's " + std::string(TeMethodName(o.method)) + " runs its comm on SMs anyway");
  }
  if (o.method == TeMethod::kExternal && g &&
      (g->num_sm || g->set_sm_margin || g->use_ce || g->num_splits || g->comm_priority || g->gemm_priority)) {
    n.push_back("external: its options are kept; it has no comm of its own (its dgrad's ring feeds it)");
  }
  if (g && g->fp8_buf) {
    if (!fp8) {
      n.push_back("fp8_buf " + std::to_string(*g->fp8_buf) + ": not an FP8 run, TE's buffer holds the GEMM's dtype");
    } else if (!o.is_reduce_scatter && *g->fp8_buf == 0) {
      n.push_back("fp8_buf 0: TE sets 1 for an all-gather key anyway (it gathers FP8)");
    }
  }
  if (o.comm_priority && o.gemm_priority && *o.comm_priority > *o.gemm_priority) {
    n.push_back("comm_priority below gemm_priority: modelled as equal priorities");
  }
  return n;
}

// A wgrad key's dgrad key ("qkv_wgrad" -> "qkv_dgrad").
const TeKey& DgradKeyOf(const TeKey& wgrad) {
  for (const TeKey& k : TeKeys()) {
    if (k.linear == wgrad.linear && k.pass == Pass::kDgrad) return k;
  }
  return wgrad;  // unreachable: every linear has a dgrad key
}

// TE's fp8_buf as initialize_ub sets it: 1 for the keys that gather, else
// the file's where the key is on TE's pipeline list.
int Fp8BufOf(const TeKey& key, const TeOptions& def, const TeGivenOptions* g) {
  if (def.fp8_buf) return 1;
  const bool pipeline_listed = (key.pass == Pass::kFprop && !key.column) ||
                               (key.column && key.pass == Pass::kDgrad && def.method == TeMethod::kPipeline);
  return g && g->fp8_buf && pipeline_listed ? *g->fp8_buf : 0;
}

TeOptions Resolve(const TeKey& key, TeMethod method, const TeGivenOptions* g, int tp) {
  const TeOptions def = TeDefaultOptions(key, method, tp);
  TeOptions o = def;
  if (g) {
    if (g->num_sm) o.num_sm = *g->num_sm;
    if (g->cga_size) o.cga_size = *g->cga_size;
    if (g->set_sm_margin) o.set_sm_margin = *g->set_sm_margin;
    if (g->num_splits) o.num_splits = *g->num_splits;
    if (g->aggregate) o.aggregate = *g->aggregate;
    if (g->atomic_gemm) o.atomic_gemm = *g->atomic_gemm;
    if (g->use_ce) o.use_ce = *g->use_ce;
    if (g->comm_priority) o.comm_priority = *g->comm_priority;
    if (g->gemm_priority) o.gemm_priority = *g->gemm_priority;
    if (g->pipeline_rs_overlap_first_gemm) o.pipeline_rs_overlap_first_gemm = *g->pipeline_rs_overlap_first_gemm;
  }
  o.fp8_buf = Fp8BufOf(key, def, g);
  // ring_exchange ignores num_splits (one step per rank): keep TE's.
  if (method == TeMethod::kRingExchange) o.num_splits = tp;
  return o;
}

}  // namespace

// Here, not beside the YAML reader: braid_te resolves files it did not read
// (braid_te_yaml, which needs yaml-cpp, depends on braid_te, not the reverse).
const TeGivenOptions* TeUbCfgsFile::Find(std::string_view key) const {
  for (const auto& [k, o] : keys) {
    if (k == key) return &o;
  }
  return nullptr;
}

Result<TeBlockConfig> ResolveTeUbCfgs(const TeUbCfgsFile* file, const LayerWorkload& lw, int gpu_sms) {
  if (!lw.sequence_parallel) {
    return Status::Invalid("TE's userbuffer overlap needs sequence parallelism (" + lw.Describe() + ")");
  }
  if (lw.ulysses) {
    // Not even a nearest setting: TE shards the weights, Ulysses replicates them.
    return Status::Invalid("TE's userbuffer overlap is tensor-parallel: a Ulysses block (" + lw.Describe() +
                           ") has no ub_cfgs");
  }
  if (lw.phase == Phase::kDecode)
    return Status::Invalid("TE's userbuffer overlap serves prefill and training, not decode");
  const bool fp8 = IsFp8(lw.dtype);
  const bool train = lw.phase == Phase::kTrain;
  TeBlockConfig out;
  // Every key is checked, whether or not the phase runs its GEMM: a file
  // TE would refuse is refused here too.
  for (const TeKey& key : TeKeys()) {
    const TeGivenOptions* g = file ? file->Find(key.name) : nullptr;
    const TeMethod method = MethodOf(key, file);
    TeMethod dgrad_method = TeMethod::kRingExchange;
    const TeKey& dgrad_key = DgradKeyOf(key);  // a wgrad's dgrad
    const std::string dgrad(dgrad_key.name);
    if (key.pass == Pass::kWgrad) {
      dgrad_method = MethodOf(dgrad_key, file);
      // initialize_ub: "Cannot specify user UB config for '<wgrad>' when its
      // corresponding dgrad '<dgrad>' uses a non-bulk overlap method".
      if (key.column && g && dgrad_method != TeMethod::kBulk) {
        return Status::Invalid(std::string(key.name) + ": TE refuses a config for it when " + dgrad + " uses " +
                               std::string(TeMethodName(dgrad_method)) +
                               " (a non-bulk method): its wgrad then runs without overlap; drop the key");
      }
    }
    const LayerOp* op = nullptr;
    for (const LayerOp& o : lw.ops) {
      if (o.kind != LayerOpKind::kAttention && TeKeyOfOp(o.name) == &key) op = &o;
    }
    const TeOptions options = Resolve(key, method, g, lw.tp);
    BRAID_RETURN_IF_ERROR(CheckKey(key, options, g, dgrad_method, lw.tp, op, gpu_sms, fp8));
    if (op == nullptr) {
      if (g)
        out.notes.push_back(std::string(key.name) + ": checked, not run (" + std::string(PhaseName(lw.phase)) +
                            " has no " + std::string(PassName(key.pass)) + " GEMM)");
      continue;
    }
    TeKeyConfig kc;
    kc.key = &key;
    kc.options = options;
    kc.given = g != nullptr;
    kc.notes = NotesOf(options, TeDefaultOptions(key, method, lw.tp), g, lw.tp, fp8);
    if (key.column && key.pass == Pass::kWgrad && dgrad_method != TeMethod::kBulk) {
      // TE gives this GEMM no userbuffer: gathered, then computed.
      kc.overlapped = false;
      kc.config = OverlapConfig{};
      kc.notes = {"no overlap: " + dgrad + " is " + std::string(TeMethodName(dgrad_method)) +
                  ", so TE runs this wgrad after its all-gather"};
    } else {
      kc.config = TeConfigOf(options, op->gemm);
    }
    out.keys.push_back(std::move(kc));
  }
  // In the block's op order.
  std::vector<TeKeyConfig> ordered;
  for (const LayerOp& op : lw.ops) {
    for (TeKeyConfig& kc : out.keys) {
      if (kc.key != nullptr && TeKeyOfOp(op.name) == kc.key) ordered.push_back(std::move(kc));
    }
  }
  out.keys = std::move(ordered);
  if (!train && file != nullptr) {
    out.notes.push_back("prefill: the four fprop keys run; the backward keys were checked as TE checks them");
  }
  return out;
}

LayerWorkload WithTeConfigs(const LayerWorkload& lw, const TeBlockConfig& block) {
  LayerWorkload out = lw;
  for (LayerOp& op : out.ops) {
    for (const TeKeyConfig& kc : block.keys) {
      if (kc.key == TeKeyOfOp(op.name)) op.config = kc.config;
    }
  }
  return out;
}

}  // namespace braid
