#include "braid/te_export.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "braid/backend_kind.h"
#include "braid/planner.h"
#include "braid/version.h"
#include "te_train_rules.h"

namespace braid {

std::string_view TeLayerKey(std::string_view layer_op_name) {
  const TeKey* key = TeKeyOfOp(layer_op_name);
  return key != nullptr ? key->name : std::string_view();
}

std::string BraidProvenance() { return std::string(BraidVersion()) + " (git " + std::string(BraidGitRevision()) + ")"; }

namespace {

std::string SplitsText(const std::vector<int>& splits) {
  std::string s = "[";
  for (size_t i = 0; i < splits.size(); ++i) s += (i ? "," : "") + std::to_string(splits[i]);
  return s + "]";
}

bool Uneven(const std::vector<int>& splits) {
  return std::adjacent_find(splits.begin(), splits.end(), std::not_equal_to<>()) != splits.end();
}

// TE's ring_exchange: one step per rank, P2P transfers; num_sm is the SM
// copy kernel's CTAs (use_ce 0) and what a margin keeps free.
void SetRingExchange(TeSettings& t, const OverlapConfig& c, int tp) {
  t.method = TeMethod::kRingExchange;
  t.num_splits = tp;
  t.num_sm = std::clamp(c.comm_sms > 0 ? c.comm_sms : 1, 1, kTeMaxCommSms);
  t.cga_size = 1;
  t.set_sm_margin = c.sm_margin ? 1 : 0;
  t.atomic_gemm = 0;
  t.use_ce = c.comm_engine == CommEngine::kCopyEngine ? 1 : 0;
  if (c.comm_sms > kTeMaxCommSms) {
    t.comments.push_back("not expressible: comm_sms=" + std::to_string(c.comm_sms) + " (TE userbuffers use at most " +
                         std::to_string(kTeMaxCommSms) + " comm SMs)");
  } else if (c.comm_sms == 0 && c.comm_engine == CommEngine::kSm) {
    t.comments.push_back("comm_sms=0 (backend default) written as num_sm 1, TE's ring_exchange default");
  }
}

// TE's pipeline (reduce-scatter): num_splits GEMM chunks, the collective on
// num_sm SMs, always SM kernels.
void SetPipeline(TeSettings& t, const OverlapConfig& c, int num_splits, int default_comm_sms) {
  t.method = TeMethod::kPipeline;
  t.num_splits = num_splits;
  t.num_sm = c.comm_sms > 0 ? c.comm_sms : default_comm_sms;
  t.cga_size = 2;
  t.set_sm_margin = c.sm_margin ? 1 : 0;
  t.atomic_gemm = 0;
  t.use_ce = 1;  // TE's default; its pipeline ignores it
  if (c.comm_sms == 0) {
    t.comments.push_back("comm_sms=0 (backend default) written as num_sm " + std::to_string(default_comm_sms) +
                         ", the default resolved for this topology");
  }
  if (c.comm_engine == CommEngine::kCopyEngine) {
    t.comments.push_back("not expressible: comm_engine=ce (TE's pipeline reduce-scatter runs on SMs; use_ce 0)");
  }
  // Userbuffers' communication kernels take at most UB_MAX_SM (32) SMs.
  if (t.num_sm > kTeMaxCommSms) {
    t.comments.push_back("not expressible: num_sm " + std::to_string(t.num_sm) + " (TE userbuffers use at most " +
                         std::to_string(kTeMaxCommSms) + " comm SMs; written as " + std::to_string(kTeMaxCommSms) +
                         ")");
    t.num_sm = kTeMaxCommSms;
  }
}

}  // namespace

TeSettings MapToTe(const OverlapConfig& c, Op op, int tp, int default_comm_sms) {
  TeSettings t;
  const bool ag = op == Op::kAgGemm;
  if (op == Op::kGemmAr) {
    t.comments.push_back(
        "gemm_ar: TE's userbuffer overlap needs sequence parallelism (reduce-scatter); written as the "
        "reduce-scatter equivalent");
  }
  const std::string chunks = "chunks=" + std::to_string(c.chunks);
  switch (c.algorithm) {
    case Algorithm::kRing:
    case Algorithm::kBidirRing:
    case Algorithm::kDirect: {
      if (c.algorithm == Algorithm::kBidirRing) {
        t.comments.push_back(
            "not expressible: bidir_ring (bidirectional ring not expressible in TE; nearest: unidirectional "
            "ring_exchange)");
      }
      // TE's ring_exchange reduce-scatter is direct's pattern: step i sends
      // the partial for rank tp_id+i straight to it. Its all-gather passes
      // blocks around a ring instead.
      const bool direct = c.algorithm == Algorithm::kDirect;
      if (direct && ag) {
        t.comments.push_back(
            "not expressible: direct for an all-gather (TE's ring_exchange all-gather passes blocks around a "
            "ring; nearest: ring_exchange)");
      }
      SetRingExchange(t, c, tp);
      if (c.chunks > 1) {
        const std::string unit = direct ? "transfer" : "ring step";
        t.comments.push_back("not expressible: " + chunks + " (sub-chunks per " + unit +
                             "; TE's ring_exchange uses one " + (direct ? "transfer" : "step") +
                             " per rank, num_splits = tp)");
      }
      break;
    }
    case Algorithm::kChunked:
      if (ag) {
        t.comments.push_back(
            "not expressible: chunked (TE's pipeline method is not available for all-gather layers; TE only "
            "offers ring_exchange for AG fprop overlap; nearest: ring_exchange)");
        SetRingExchange(t, c, tp);
        if (c.chunks != tp) {
          t.comments.push_back("not expressible: " + chunks +
                               " (ring_exchange uses num_splits = tp = " + std::to_string(tp) + ")");
        }
      } else {
        SetPipeline(t, c, c.chunks, default_comm_sms);
      }
      break;
    case Algorithm::kFused:
      // TE's nearest, atomic GEMM, is refused by initialize_ub for anything
      // but FP8 GEMMs ("Atomic GEMM overlap supported only for FP8 GEMM"),
      // Braid's task kernel refuses FP8 (its GEMM core takes E4M3 only on
      // sm_90a), and cuBLAS 13 removed atomic GEMM:
      // atomic_gemm stays 0 and the nearest method TE accepts is written.
      if (ag) {
        t.comments.push_back(
            "fused: Braid's per-tile P2P+GEMM kernel written as TE's nearest accepted method, ring_exchange "
            "(atomic_gemm needs an FP8 GEMM)");
        SetRingExchange(t, c, tp);
      } else {
        t.comments.push_back(
            "fused: Braid's per-tile GEMM+reduce-scatter kernel written as TE's nearest accepted "
            "method, pipeline with num_splits = tp (atomic_gemm needs an FP8 GEMM)");
        SetPipeline(t, c, tp, default_comm_sms);
      }
      break;
    case Algorithm::kBulk:
      // TE's bulk: the collective on num_sm SMs beside an independent GEMM.
      SetPipeline(t, c, 1, default_comm_sms);
      t.method = TeMethod::kBulk;
      t.set_sm_margin = 0;
      break;
    case Algorithm::kExternal:
      // TE's external: no collective of its own (its dgrad's ring exchange feeds it).
      SetRingExchange(t, c, tp);
      t.method = TeMethod::kExternal;
      break;
    case Algorithm::kSerial:
    case Algorithm::kIso:
    case Algorithm::kA2a:
    case Algorithm::kA2aDirect:
      if (c.algorithm == Algorithm::kIso) {
        t.comments.push_back(
            "not expressible: iso (layer-level sequence split, not a per-GEMM overlap); written as serial");
      }
      if (IsUlysses(c.algorithm)) {
        // Export refuses these before asking for a nearest setting
        // (FillEntry); a direct caller still gets a total mapping.
        t.comments.push_back("not expressible: " + std::string(AlgorithmName(c.algorithm)) +
                             " (Ulysses all-to-all with replicated weights; TE has no such method); written as serial");
      }
      if (ag) {
        t.comments.push_back(
            "serial: no overlap; TE has no per-layer off switch for AG overlap; nearest TE setting ring_exchange "
            "(or leave this layer out of --tp-comm-overlap)");
        SetRingExchange(t, c, tp);
      } else {
        t.comments.push_back("serial: no overlap; nearest TE setting (pipeline, num_splits 1)");
        SetPipeline(t, c, 1, default_comm_sms);
      }
      if (c.chunks > 1) t.comments.push_back("not expressible: " + chunks);
      break;
  }
  if (!c.splits.empty() && Uneven(c.splits)) {
    t.comments.push_back("not expressible: splits=" + SplitsText(c.splits) + " (uneven; TE splits evenly)");
  }
  if (c.comm_lanes > 1) {
    t.comments.push_back("not expressible: streams=" + std::to_string(c.comm_lanes) +
                         " (comm lanes; TE chooses its own comm streams)");
  }
  if (!c.comm_high_priority) {
    t.comm_priority = 0;  // level with the GEMM (te_ub_cfgs.h TeOptionsOf)
    t.gemm_priority = 0;
  }
  return t;
}

std::vector<int> PresetTps(const PresetTable& table, std::string_view gpu, std::string_view topology) {
  std::set<int> tps;
  for (const Preset& p : table.presets()) {
    if (p.key.gpu == gpu && p.key.topology == topology) tps.insert(p.key.workload.tp);
  }
  return {tps.begin(), tps.end()};
}

namespace {

std::string Micros(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", ns / 1000.0);
  return buf;
}

std::string Fixed(double v, const char* fmt) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

Status NoPreset(const LayerOp& op, std::string_view key, const LayerWorkload& lw, const std::string& gpu,
                const std::string& topology, const std::string& source) {
  const std::string what = lw.phase == Phase::kTrain ? std::string(key) + ": " + op.gemm.Describe() + ", pass " +
                                                           std::string(PassName(op.pass))
                                                     : op.gemm.Describe();
  return Status::NotFound("no preset for " + op.name + " (" + what + ") on gpu " + gpu + ", topology " + topology +
                          " in " + source);
}

// One GEMM's entry from the preset that answered it: the comments that say
// where its config came from.
TeUbCfg EntryOf(const LayerOp& op, std::string_view key, const LookupResult& r) {
  const Preset& p = *r.preset;
  TeUbCfg b;
  b.key = std::string(key);
  b.match = r.match;
  b.fp8 = IsFp8(op.gemm.dtype);
  b.preset_config = p.config;
  b.comments.push_back(op.name + ": " + op.gemm.Describe() +
                       (op.kind == LayerOpKind::kLocalGemm ? " (local GEMM: no collective of its own)" : ""));
  if (r.match == PresetMatch::kNearest) {
    b.comments.push_back("nearest match (no exact entry): config from preset " + p.key.workload.Describe() +
                         (p.key.layer.empty() ? "" : " (" + p.key.layer + ")") + ", distance " +
                         Fixed(r.distance, "%.3f") + " in ln(M,N,K)");
  } else {
    b.comments.push_back("exact match" + (p.key.layer.empty() ? std::string() : ": preset " + p.key.layer));
  }
  b.comments.push_back("braid config: " + p.config.Describe() + "; " + Micros(p.time_ns) + " on the " + p.backend +
                       " backend, " + Fixed(p.speedup_vs_serial, "%.2f") + "x vs serial");
  return b;
}

// TE's nearest setting for the preset's config (--nearest).
void SetNearest(const LayerOp& op, const OverlapConfig& config, const LayerWorkload& lw, const TeExportInfo& info,
                TeUbCfg& b) {
  std::vector<std::string> taken;
  const OverlapConfig takes = detail::ConfigTeTakes(op, config, taken);
  b.te = MapToTe(takes, op.gemm.op, lw.tp, info.default_comm_sms);
  b.te.comments.insert(b.te.comments.begin(), taken.begin(), taken.end());
  // TE's fp8_buf as initialize_ub sets it for the key.
  if (const TeKey* key = TeKeyOfOp(op.name)) b.te.fp8_buf = TeDefaultOptions(*key, b.te.method, lw.tp).fp8_buf;
  b.nearest = true;
}

Status NotExpressible(const Status& why) {
  return Status::Invalid(why.message() +
                         "; tune with `runtime` te for configs TE runs as tuned, or export TE's nearest setting "
                         "(`nearest`)");
}

// Whether a wgrad's config pairs with its dgrad's as the tuner derives it
// (planner.h WgradConfigBeside).
bool PairsWith(const OverlapConfig& wgrad, const OverlapConfig& dgrad, bool column) {
  return wgrad.algorithm == WgradConfigBeside(dgrad, column).algorithm;
}

// The exact entry of a GEMM, or (nearest) TE's nearest setting. `dgrad`: a
// wgrad's layer's dgrad entry.
Status FillEntry(const LayerOp& op, const TeKey& key, OverlapConfig config, const LayerWorkload& lw,
                 const TeExportInfo& info, const TeUbCfg* dgrad, TeUbCfg& b) {
  if (IsUlysses(config.algorithm)) {
    // Not even a nearest setting: TE shards the weight, Ulysses replicates it.
    return Status::Invalid(b.key + ": " + config.Describe() +
                           " is Ulysses sequence parallelism (replicated weights, all-to-alls): TE's userbuffers "
                           "have no method for it, nor a nearest one; tune this GEMM with another `algorithm`");
  }
  // A wgrad answered by another shape's preset (a nearest match) may not
  // pair with this dgrad: it then follows the dgrad as the tuner would have.
  if (key.pass == Pass::kWgrad && dgrad != nullptr && b.match == PresetMatch::kNearest &&
      !PairsWith(config, dgrad->preset_config, key.column)) {
    const OverlapConfig derived = WgradConfigBeside(dgrad->preset_config, key.column);
    b.comments.push_back("the nearest preset's " + config.Describe() + " does not pair with " + dgrad->key +
                         "'s config: derived from it as the tuner does (" + derived.Describe() + ")");
    config = derived;
  }
  if (key.pass == Pass::kWgrad && dgrad != nullptr) {
    const bool dgrad_bulk = dgrad->te.method == TeMethod::kBulk;
    if (key.column && !dgrad_bulk) {
      // TE refuses the key and runs the GEMM without overlap: what the
      // tuner derives beside a non-bulk dgrad (serial).
      if (config.algorithm == Algorithm::kSerial || info.nearest) {
        b.omitted = true;
        b.te.comments = {
            "omitted: " + dgrad->key + " is " + std::string(TeMethodName(dgrad->te.method)) +
            ", not bulk: TE refuses a " + b.key + " entry then and runs this wgrad GEMM without overlap" +
            (config.algorithm == Algorithm::kSerial ? "" : " (not the preset's " + config.Describe() + ")")};
        b.nearest = config.algorithm != Algorithm::kSerial;
        return Status::Ok();
      }
      return NotExpressible(Status::Invalid(b.key + ": " + config.Describe() + " beside " + dgrad->key + "'s " +
                                            std::string(TeMethodName(dgrad->te.method)) +
                                            ": TE runs this wgrad without overlap unless its dgrad is bulk"));
    }
    if (key.column && dgrad_bulk && config.algorithm != Algorithm::kBulk && !info.nearest) {
      return NotExpressible(Status::Invalid(b.key + ": " + config.Describe() + " beside a bulk " + dgrad->key +
                                            ": TE overlaps a column layer's dgrad and wgrad together or not at all"));
    }
    if (!key.column && (dgrad->te.method != TeMethod::kRingExchange || dgrad->nearest) && !info.nearest) {
      return NotExpressible(Status::Invalid(b.key + ": " + dgrad->key + " is not TE's ring_exchange as tuned"));
    }
  }
  Result<TeOptions> exact = TeOptionsOf(config, key, op.gemm, lw.tp);
  if (exact.ok()) {
    static_cast<TeOptions&>(b.te) = *exact;
    return Status::Ok();
  }
  if (!info.nearest) return NotExpressible(exact.status());
  SetNearest(op, config, lw, info, b);
  if (key.pass == Pass::kWgrad && dgrad != nullptr) {
    detail::FitWgradToDgrad(op, *dgrad, config, lw.tp, info.default_comm_sms, b);
  }
  return Status::Ok();
}

std::vector<std::string> Header(const LayerWorkload& lw, const std::string& gpu, const std::string& topology,
                                const TeExportInfo& info, const std::vector<std::string>& backends) {
  std::string backend_list;
  for (const std::string& be : backends) backend_list += (backend_list.empty() ? "" : ", ") + be;
  std::vector<std::string> header = {
      "TransformerEngine userbuffer overlap config (ub_cfgs), generated by braid " + info.braid_version,
      "for Megatron-LM --tp-comm-overlap-cfg, i.e. transformer_engine.pytorch.initialize_ub(ub_cfgs=...)",
      "model " + lw.model.name + ", seq " + std::to_string(lw.seq) + ", batch " + std::to_string(lw.batch) + ", tp " +
          std::to_string(lw.tp) + ", " + std::string(DTypeName(lw.dtype)) + ", " + std::string(PhaseName(lw.phase)) +
          ", sequence parallel; topology " + topology + ", gpu " + gpu,
      "source presets: " + info.source,
      "configs measured on the " + backend_list + (backends.size() == 1 ? " backend" : " backends") +
          (backends.size() == 1 && IsBackend(backends[0], BackendKind::kSim) ? " (simulated)" : ""),
      info.nearest ? "where a preset's config is not expressible, TE's nearest setting is written and what it "
                     "lacks is listed above its key (comm_sms=0, the backend default, as " +
                         std::to_string(info.default_comm_sms) + ": " + info.default_comm_sms_origin + ")"
                   : "every key runs exactly the preset's config"};
  if (lw.phase == Phase::kTrain) {
    header.push_back(
        "train: forward and backward GEMMs; a wgrad key TE refuses beside its dgrad is left out, with its "
        "comments and the reason");
  }
  return header;
}

}  // namespace

Result<TeUbCfgs> BuildTeUbCfgs(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                               const std::string& topology, const TeExportInfo& info) {
  if (!lw.sequence_parallel) {
    return Status::Invalid("TE's userbuffer overlap needs sequence parallelism (" + lw.Describe() + ")");
  }
  if (lw.ulysses) {
    // Not even a nearest setting: TE shards the weights, Ulysses replicates them.
    return Status::Invalid("TE's userbuffer overlap is tensor-parallel: a Ulysses block (" + lw.Describe() +
                           ") has no ub_cfgs");
  }
  std::vector<TeUbCfg> blocks;
  std::vector<std::string> backends;       // distinct, in order of first use
  std::map<std::string, size_t> dgrad_at;  // linear -> its dgrad's entry in `blocks`
  for (const LayerOp& op : lw.ops) {
    if (op.kind == LayerOpKind::kAttention) continue;
    const std::string_view key = TeLayerKey(op.name);
    if (key.empty()) return Status::Internal("no TransformerEngine ub_cfgs key for layer op '" + op.name + "'");
    const LookupResult r = table.Lookup(op.gemm, gpu, topology, "", op.pass);
    if (r.preset == nullptr) return NoPreset(op, key, lw, gpu, topology, info.source);
    const std::string& backend = r.preset->backend;
    if (std::find(backends.begin(), backends.end(), backend) == backends.end()) backends.push_back(backend);
    TeUbCfg b = EntryOf(op, key, r);
    const TeUbCfg* dgrad = nullptr;
    if (op.pass == Pass::kWgrad) {
      // Megatron-LM's order, and so the layer workload's: a dgrad, then its wgrad.
      const auto d = dgrad_at.find(op.linear);
      if (d == dgrad_at.end()) return Status::Internal(op.name + " comes before its layer's dgrad");
      dgrad = &blocks[d->second];
    }
    BRAID_RETURN_IF_ERROR(FillEntry(op, *TeKeyOfOp(op.name), r.preset->config, lw, info, dgrad, b));
    if (op.pass == Pass::kDgrad) dgrad_at[op.linear] = blocks.size();
    blocks.push_back(std::move(b));
  }
  return TeUbCfgs{Header(lw, gpu, topology, info, backends), std::move(blocks)};
}

std::string TeUbCfgsYaml(const TeUbCfgs& cfgs) {
  std::string out;
  for (const std::string& line : cfgs.header) out += "# " + OneLine(line) + "\n";
  for (const TeUbCfg& b : cfgs.layers) {
    out += "\n";
    for (const std::string& c : b.comments) out += "# " + OneLine(c) + "\n";
    for (const std::string& c : b.te.comments) out += "# " + OneLine(c) + "\n";
    if (b.omitted) {
      out += "# " + b.key + ": (omitted)\n";
      continue;
    }
    const TeSettings& t = b.te;
    out += b.key + ":\n";
    out += "  method: " + std::string(TeMethodName(t.method)) + "\n";
    out += "  num_splits: " + std::to_string(t.num_splits) + "\n";
    out += "  num_sm: " + std::to_string(t.num_sm) + "\n";
    out += "  cga_size: " + std::to_string(t.cga_size) + "\n";
    out += "  set_sm_margin: " + std::to_string(t.set_sm_margin) + "\n";
    out += "  atomic_gemm: " + std::to_string(t.atomic_gemm) + "\n";
    out += "  use_ce: " + std::to_string(t.use_ce) + "\n";
    out += "  aggregate: " + std::to_string(t.aggregate) + "\n";
    if (b.fp8) out += "  fp8_buf: " + std::to_string(t.fp8_buf) + "\n";
    if (t.comm_priority) out += "  comm_priority: " + std::to_string(*t.comm_priority) + "\n";
    if (t.gemm_priority) out += "  gemm_priority: " + std::to_string(*t.gemm_priority) + "\n";
    if (t.pipeline_rs_overlap_first_gemm) out += "  pipeline_rs_overlap_first_gemm: 1\n";
  }
  return out;
}

Result<std::string> ExportTeYaml(const PresetTable& table, const LayerWorkload& lw, const std::string& gpu,
                                 const std::string& topology, const TeExportInfo& info) {
  BRAID_ASSIGN_OR_RETURN(auto cfgs, BuildTeUbCfgs(table, lw, gpu, topology, info));
  return TeUbCfgsYaml(cfgs);
}

}  // namespace braid
