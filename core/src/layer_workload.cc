#include "braid/layer_workload.h"

#include <sstream>
#include <utility>

namespace braid {

std::string_view PhaseName(Phase p) { return p == Phase::kPrefill ? "prefill" : "decode"; }

Result<Phase> ParsePhase(std::string_view name) {
  if (name == "prefill") return Phase::kPrefill;
  if (name == "decode") return Phase::kDecode;
  return Status::Invalid("unknown phase '" + OneLine(name) + "' (known: prefill, decode)");
}

std::string LayerWorkload::Describe() const {
  std::ostringstream os;
  os << model.name << " " << PhaseName(phase) << " seq=" << seq << " batch=" << batch << " " << DTypeName(dtype)
     << " P=" << tp << " sp=" << (sequence_parallel ? "on" : "off");
  return os.str();
}

double AttentionFlops(const LayerWorkload& lw, int64_t q_begin, int64_t q_end) {
  const double heads = double(lw.model.heads / lw.tp);
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

}  // namespace

Result<LayerWorkload> MakeLayerWorkload(const ModelSpec& model, int64_t seq, int64_t batch, Phase phase, int tp,
                                        DType dtype, std::optional<bool> sequence_parallel) {
  if (seq < 1) return Status::Invalid("`seq` must be at least 1 (got " + std::to_string(seq) + ")");
  if (batch < 1) return Status::Invalid("`batch` must be at least 1 (got " + std::to_string(batch) + ")");
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
  lw.sequence_parallel = sequence_parallel.value_or(phase == Phase::kPrefill);
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
  LayerOp attn;
  attn.name = "attention";
  attn.kind = LayerOpKind::kAttention;
  attn.flops = AttentionFlops(lw, 0, seq);
  attn.bytes = AttentionBytes(lw, 0, seq);
  attn.gemm.dtype = dtype;
  attn.gemm.tp = tp;
  lw.ops.push_back(attn);
  lw.ops.push_back(Gemm(lw, "out_proj", false, model.hidden, model.heads * hd));
  lw.ops.push_back(Gemm(lw, "fc1", true, (model.gated_mlp ? 2 : 1) * model.ffn, model.hidden));
  lw.ops.push_back(Gemm(lw, "fc2", false, model.hidden, model.ffn));
  for (const LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    if (Status s = op.gemm.Validate(); !s.ok()) return Status::Invalid(op.name + ": " + s.message());
  }
  return lw;
}

}  // namespace braid
