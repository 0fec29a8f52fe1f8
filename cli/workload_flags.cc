#include "workload_flags.h"

#include <optional>
#include <tuple>
#include <utility>

#include "braid/model_files.h"
#include "braid/size_parse.h"

namespace braid::cli {

Result<Workload> WorkloadFromFlags(const std::string& op, const std::string& m, const std::string& n,
                                   const std::string& k, int tp, const std::string& dtype) {
  Workload w;
  auto parsed_op = ParseOp(op);
  if (!parsed_op.ok()) return parsed_op.status();
  w.op = *parsed_op;
  for (auto [text, flag, dst] : {std::tuple{&m, "--m", &w.m}, {&n, "--n", &w.n}, {&k, "--k", &w.k}}) {
    auto v = ParseSize(*text, flag);
    if (!v.ok()) return v.status();
    *dst = *v;
  }
  if (tp <= 0) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(tp) + ")");
  w.tp = tp;
  auto dt = ParseDType(dtype);
  if (!dt.ok()) return dt.status();
  w.dtype = *dt;
  return w;
}

void AddWorkloadOptions(CLI::App* sub, WorkloadArgs* a, const char* model_help) {
  sub->add_option("--op", a->op, "ag_gemm | gemm_rs | gemm_ar");
  sub->add_option("--m", a->m, "rows of A and C (K/M/G suffixes)");
  sub->add_option("--n", a->n, "columns of B and C");
  sub->add_option("--k", a->k, "inner dimension");
  sub->add_option("--model", a->model, model_help);
  sub->add_option("--seq", a->seq, "layer: sequence length (prefill) or KV cache length (decode)");
  sub->add_option("--batch", a->batch, "layer: sequences in the batch (default 1)");
  sub->add_option("--phase", a->phase, "layer: prefill | decode")->capture_default_str();
  sub->add_option("--sequence-parallel", a->sequence_parallel,
                  "layer: on | off (default: on for prefill, off for decode)");
  sub->add_option("--tp", a->tp, "tensor-parallel degree P")->required();
  sub->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32")->capture_default_str();
}

// `--model NAME --seq L [--batch B] [--phase P] [--sequence-parallel on|off]`.
Result<LayerWorkload> LayerFromArgs(const WorkloadArgs& a) {
  if (a.seq.empty()) return Status::Invalid("--model needs --seq (the sequence length)");
  auto model = LoadModel(a.model);
  if (!model.ok()) return model.status();
  auto seq = ParseSize(a.seq, "--seq");
  if (!seq.ok()) return seq.status();
  int64_t batch = 1;
  if (!a.batch.empty()) {
    auto b = ParseSize(a.batch, "--batch");
    if (!b.ok()) return b.status();
    batch = *b;
  }
  auto phase = ParsePhase(a.phase);
  if (!phase.ok()) return phase.status();
  std::optional<bool> sp;
  if (a.sequence_parallel == "on") {
    sp = true;
  } else if (a.sequence_parallel == "off") {
    sp = false;
  } else if (!a.sequence_parallel.empty()) {
    return Status::Invalid("--sequence-parallel '" + OneLine(a.sequence_parallel) + "': use on or off");
  }
  auto dt = ParseDType(a.dtype);
  if (!dt.ok()) return dt.status();
  if (a.tp <= 0) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(a.tp) + ")");
  return MakeLayerWorkload(*model, *seq, batch, *phase, a.tp, *dt, sp);
}

// Exactly one workload form: --op/--m/--n/--k or --model/--seq/--batch.
Status CheckWorkloadForm(const WorkloadArgs& a) {
  const bool op_form = !a.op.empty() || !a.m.empty() || !a.n.empty() || !a.k.empty();
  const bool layer_form = !a.model.empty();
  if (op_form && layer_form) {
    return Status::Invalid("give one workload: either --op/--m/--n/--k or --model/--seq/--batch, not both");
  }
  if (!op_form && !layer_form) {
    return Status::Invalid("give a workload: --op, --m, --n, --k (one op) or --model, --seq, --batch (a layer)");
  }
  if (op_form) {
    for (auto [v, flag] : {std::pair{&a.op, "--op"}, {&a.m, "--m"}, {&a.n, "--n"}, {&a.k, "--k"}}) {
      if (v->empty()) return Status::Invalid(std::string(flag) + " is required with --op/--m/--n/--k (or use --model)");
    }
    if (!a.seq.empty() || !a.batch.empty() || !a.sequence_parallel.empty() || a.phase != "prefill") {
      return Status::Invalid("--seq, --batch, --phase and --sequence-parallel apply to --model only");
    }
  }
  return Status::Ok();
}

}  // namespace braid::cli
