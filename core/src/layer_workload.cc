#include "braid/layer_workload.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "braid/name_table.h"

namespace braid {

namespace {

constexpr NameTable<Phase, 3> kPhaseNames{{
    {Phase::kPrefill, "prefill"},
    {Phase::kDecode, "decode"},
    {Phase::kTrain, "train"},
}};
static_assert(IsOneToOne(kPhaseNames));

constexpr NameTable<Pass, 3> kPassNames{{
    {Pass::kFprop, "fprop"},
    {Pass::kDgrad, "dgrad"},
    {Pass::kWgrad, "wgrad"},
}};
static_assert(IsOneToOne(kPassNames));

}  // namespace

std::string_view PhaseName(Phase p) { return NameIn(kPhaseNames, p); }

Result<Phase> ParsePhase(std::string_view name) { return ParseNamed(kPhaseNames, "phase", name); }

std::string_view PassName(Pass p) { return NameIn(kPassNames, p); }

Result<Pass> ParsePass(std::string_view name) { return ParseNamed(kPassNames, "pass", name); }

std::string LayerWorkload::Describe() const {
  std::ostringstream os;
  os << model.name << " " << PhaseName(phase) << " seq=" << seq << " batch=" << batch << " " << DTypeName(dtype)
     << " P=" << tp << " sp="
     << (ulysses             ? "ulysses"
         : sequence_parallel ? "on"
                             : "off");
  return os.str();
}

double AttentionFlops(const LayerWorkload& lw, int64_t q_begin, int64_t q_end) {
  const double heads = double(lw.model.heads) / double(lw.tp);  // heads % P == 0 (MakeLayerWorkload)
  const double hd = double(lw.model.head_dim), b = double(lw.batch);
  if (lw.phase == Phase::kDecode) return 4.0 * b * double(lw.seq) * hd * heads;
  const double pairs = (double(q_end) * double(q_end) - double(q_begin) * double(q_begin)) / 2.0;
  return heads * 4.0 * b * hd * pairs;
}

int64_t AttentionBytes(const LayerWorkload& lw, int64_t q_begin, int64_t q_end) {
  const int64_t p = lw.tp, hd = lw.model.head_dim;
  const int64_t q_heads = lw.model.heads / p, kv_heads = lw.model.kv_heads / p;
  const int64_t queries = lw.phase == Phase::kDecode ? 1 : q_end - q_begin;
  const int64_t keys = lw.phase == Phase::kDecode ? lw.seq : q_end;
  const int64_t elems = lw.batch * (2 * queries * q_heads * hd + 2 * keys * kv_heads * hd);
  return elems * DTypeBytes(lw.dtype);
}

namespace {

Status Divides(int64_t value, const char* what, int p) {
  if (value % p == 0) return Status::Ok();
  return Status::Invalid(std::string(what) + "=" + std::to_string(value) +
                         " is not divisible by P=" + std::to_string(p) + " (" + what + " % P must be 0)");
}

LayerOp Gemm(const LayerWorkload& lw, const char* name, bool column, int64_t n, int64_t k) {
  LayerOp op;
  op.name = name;
  op.linear = name;
  op.column = column;
  op.gemm.m = lw.tokens();
  op.gemm.n = n;
  op.gemm.k = k;
  op.gemm.dtype = lw.dtype;
  op.gemm.tp = lw.tp;
  if (column) {
    op.kind = lw.sequence_parallel ? LayerOpKind::kTpGemm : LayerOpKind::kLocalGemm;
    op.gemm.op = Op::kAgGemm;
  } else {
    op.kind = LayerOpKind::kTpGemm;
    op.gemm.op = lw.sequence_parallel ? Op::kGemmRs : Op::kGemmAr;
  }
  return op;
}

LayerOp TpGemm(const LayerWorkload& lw, const LayerOp& fwd, Pass pass, LayerOpKind kind, Op op, int64_t m, int64_t n,
               int64_t k) {
  LayerOp out;
  out.name = fwd.linear + "." + std::string(PassName(pass));
  out.linear = fwd.linear;
  out.pass = pass;
  out.column = fwd.column;
  out.kind = kind;
  out.gemm.op = op;
  out.gemm.m = m;
  out.gemm.n = n;
  out.gemm.k = k;
  out.gemm.dtype = lw.dtype;
  out.gemm.tp = lw.tp;
  return out;
}

// The attention step over the whole sequence on the rank's heads.
LayerOp Attention(const LayerWorkload& lw) {
  LayerOp attn;
  attn.name = "attention";
  attn.linear = "attention";
  attn.kind = LayerOpKind::kAttention;
  attn.flops = AttentionFlops(lw, 0, lw.seq);
  attn.bytes = AttentionBytes(lw, 0, lw.seq);
  attn.gemm.dtype = lw.dtype;
  attn.gemm.tp = lw.tp;
  return attn;
}

// The backward of one linear layer whose forward is `fwd` (layer_workload.h).
void AddLinearBackward(LayerWorkload& lw, const LayerOp& fwd) {
  const int64_t t = fwd.gemm.m, out = fwd.gemm.n, in = fwd.gemm.k;
  if (fwd.column) {
    lw.ops.push_back(TpGemm(lw, fwd, Pass::kDgrad, LayerOpKind::kTpGemm, Op::kGemmRs, t, in, out));
    lw.ops.push_back(TpGemm(lw, fwd, Pass::kWgrad, LayerOpKind::kTpGemm, Op::kAgGemm, in, out, t));
  } else {
    lw.ops.push_back(TpGemm(lw, fwd, Pass::kDgrad, LayerOpKind::kTpGemm, Op::kAgGemm, t, in, out));
    lw.ops.push_back(TpGemm(lw, fwd, Pass::kWgrad, LayerOpKind::kLocalGemm, Op::kAgGemm, out, in, t));
  }
}

// Renames the forward ops `<op>.fprop` and appends the backward (header).
void AddBackward(LayerWorkload& lw) {
  const std::vector<LayerOp> fwd = lw.ops;  // qkv, attention, out_proj, fc1, fc2
  for (LayerOp& op : lw.ops) op.name += ".fprop";
  AddLinearBackward(lw, fwd[4]);
  AddLinearBackward(lw, fwd[3]);
  AddLinearBackward(lw, fwd[2]);
  LayerOp attn = fwd[1];
  attn.name = "attention.backward";
  attn.pass = Pass::kDgrad;
  attn.flops = fwd[1].flops * kAttentionBackwardFlopsRatio;
  attn.bytes = fwd[1].bytes * kAttentionBackwardBytesRatio;
  lw.ops.push_back(attn);
  AddLinearBackward(lw, fwd[0]);
}

}  // namespace

Result<LayerWorkload> MakeLayerWorkload(const ModelSpec& model, int64_t seq, int64_t batch, Phase phase, int tp,
                                        DType dtype, std::optional<bool> sequence_parallel) {
  if (seq < 1) return Status::Invalid("`seq` must be at least 1 (got " + std::to_string(seq) + ")");
  if (batch < 1) return Status::Invalid("`batch` must be at least 1 (got " + std::to_string(batch) + ")");
  // seq · batch is every GEMM's M: checked before anything multiplies it.
  if (int64_t tokens = 0; __builtin_mul_overflow(seq, batch, &tokens) || tokens > kMaxLayerTokens) {
    return Status::Invalid("`seq` (" + std::to_string(seq) + ") times `batch` (" + std::to_string(batch) +
                           ") is more than the " + std::to_string(kMaxLayerTokens) + " tokens a block may hold");
  }
  if (tp < 1) return Status::Invalid("`tp` must be at least 1 (got " + std::to_string(tp) + ")");
  if (model.hidden < 1 || model.heads < 1 || model.kv_heads < 1 || model.head_dim < 1 || model.ffn < 1) {
    return Status::Invalid("model '" + model.name + "' has a size below 1");
  }
  LayerWorkload lw;
  lw.model = model;
  lw.seq = seq;
  lw.batch = batch;
  lw.phase = phase;
  lw.tp = tp;
  lw.dtype = dtype;
  lw.sequence_parallel = sequence_parallel.value_or(phase != Phase::kDecode);
  if (phase == Phase::kTrain && !lw.sequence_parallel) {
    return Status::Invalid(
        "train plans follow TransformerEngine's overlaps, which need sequence parallelism "
        "(`sequence_parallel` on)");
  }
  const std::string who = "model '" + model.name + "': ";
  for (auto [value, what] : {std::pair{model.heads, "heads"}, {model.kv_heads, "kv_heads"}, {model.ffn, "ffn"}}) {
    if (Status s = Divides(value, what, tp); !s.ok()) return Status::Invalid(who + s.message());
  }
  if (lw.sequence_parallel) {
    if (Status s = Divides(lw.tokens(), "tokens", tp); !s.ok()) {
      return Status::Invalid("sequence parallelism scatters the tokens over the ranks: " + s.message() +
                             " (or use `sequence_parallel` off)");
    }
  }
  const int64_t hd = model.head_dim;
  lw.ops.push_back(Gemm(lw, "qkv", true, (model.heads + 2 * model.kv_heads) * hd, model.hidden));
  lw.ops.push_back(Attention(lw));
  lw.ops.push_back(Gemm(lw, "out_proj", false, model.hidden, model.heads * hd));
  lw.ops.push_back(Gemm(lw, "fc1", true, (model.gated_mlp ? 2 : 1) * model.ffn, model.hidden));
  lw.ops.push_back(Gemm(lw, "fc2", false, model.hidden, model.ffn));
  if (phase == Phase::kTrain) AddBackward(lw);
  for (const LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    if (Status s = op.gemm.Validate(); !s.ok()) return Status::Invalid(op.name + ": " + s.message());
  }
  return lw;
}

Result<LayerWorkload> MakeUlyssesLayerWorkload(const ModelSpec& model, int64_t seq, int64_t batch, Phase phase, int sp,
                                               DType dtype) {
  if (phase != Phase::kPrefill) {
    return Status::Invalid(
        phase == Phase::kDecode
            ? std::string("Ulysses splits each sequence over the ranks: decode has one new token per sequence "
                          "(use `phase` prefill)")
            : std::string("a Ulysses training step is not modelled: its weight gradients are summed over the "
                          "sequence-parallel group by the data-parallel step (use `phase` prefill, or --dp-op "
                          "for the gradient collectives)"));
  }
  if (sp < 1) return Status::Invalid("`tp` (the Ulysses degree) must be at least 1 (got " + std::to_string(sp) + ")");
  // Sizes first (MakeLayerWorkload's own rules, on one rank: no divisibility).
  BRAID_ASSIGN_OR_RETURN(LayerWorkload lw, MakeLayerWorkload(model, seq, batch, phase, 1, dtype, true));
  const std::string who = "model '" + model.name + "': ";
  for (auto [value, what] : {std::pair{model.heads, "heads"}, {model.kv_heads, "kv_heads"}}) {
    if (value % sp != 0) {
      return Status::Invalid(who + what + "=" + std::to_string(value) + " is not divisible by the Ulysses degree P=" +
                             std::to_string(sp) + " (each rank attends with whole heads: " + what + " % P must be 0)");
    }
  }
  if (seq % sp != 0) {
    return Status::Invalid("`seq`=" + std::to_string(seq) + " is not divisible by the Ulysses degree P=" +
                           std::to_string(sp) + " (each rank holds seq/P tokens of every sequence)");
  }
  lw.tp = sp;
  lw.ulysses = true;
  const int64_t hd = model.head_dim;
  lw.ops.clear();
  LayerOp qkv = Gemm(lw, "qkv", true, (model.heads + 2 * model.kv_heads) * hd, model.hidden);
  qkv.kind = LayerOpKind::kTpGemm;  // the all-to-all to heads
  lw.ops.push_back(qkv);
  lw.ops.push_back(Attention(lw));
  LayerOp out_proj = Gemm(lw, "out_proj", false, model.hidden, model.heads * hd);
  out_proj.gemm.op = Op::kGemmRs;  // the all-to-all back to tokens
  lw.ops.push_back(out_proj);
  for (LayerOp mlp : {Gemm(lw, "fc1", true, (model.gated_mlp ? 2 : 1) * model.ffn, model.hidden),
                      Gemm(lw, "fc2", false, model.hidden, model.ffn)}) {
    mlp.kind = LayerOpKind::kRowLocalGemm;
    mlp.gemm.op = Op::kAgGemm;  // whole products, as a local GEMM's (Plan::op_products)
    lw.ops.push_back(mlp);
  }
  for (const LayerOp& op : lw.ops) {
    // A row-local GEMM shards only M (seq % P above); its N need not divide.
    const Status s = op.kind == LayerOpKind::kTpGemm         ? op.gemm.Validate()
                     : op.kind == LayerOpKind::kRowLocalGemm ? op.gemm.CheckFitsEventTimes()
                                                             : Status::Ok();
    if (!s.ok()) return Status::Invalid(op.name + ": " + s.message());
  }
  return lw;
}

}  // namespace braid
