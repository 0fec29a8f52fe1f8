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
  BRAID_ASSIGN_OR_RETURN(auto parsed_op, ParseOp(op));
  w.op = parsed_op;
  for (auto [text, flag, dst] : {std::tuple{&m, "--m", &w.m}, {&n, "--n", &w.n}, {&k, "--k", &w.k}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, ParseSize(*text, flag));
    *dst = v;
  }
  if (tp <= 0) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(tp) + ")");
  w.tp = tp;
  BRAID_ASSIGN_OR_RETURN(auto dt, ParseDType(dtype));
  w.dtype = dt;
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
  sub->add_option("--phase", a->phase, "layer: prefill | decode | train (forward and backward)")->capture_default_str();
  sub->add_option("--sequence-parallel,--sp", a->sequence_parallel,
                  "layer: on | off (Megatron's, beside tensor parallelism; default: on for prefill and train, off "
                  "for decode) | ulysses (DeepSpeed-Ulysses over the --tp ranks: weights replicated, all-to-alls "
                  "beside qkv and out_proj by --algo a2a | a2a_direct; prefill)");
  sub->add_option("--tp", a->tp, "tensor-parallel degree P")->required();
  sub->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32 | fp8_e4m3 | fp8_e5m2")->capture_default_str();
}

void AddCommDTypeOption(CLI::App* sub, std::string* comm_dtype) {
  sub->add_option("--comm-dtype", *comm_dtype,
                  "FP8 GEMMs: what communication moves. auto: all-gathers FP8, reduce-scatters bf16 "
                  "(TransformerEngine's default) | bf16: everything bf16 | the --dtype: reduce-scatters FP8 "
                  "too (ring, bidir_ring)")
      ->capture_default_str();
}

// `--model NAME --seq L [--batch B] [--phase P] [--sequence-parallel on|off|ulysses]`.
Result<LayerWorkload> LayerFromArgs(const WorkloadArgs& a) {
  if (a.seq.empty()) return Status::Invalid("--model needs --seq (the sequence length)");
  BRAID_ASSIGN_OR_RETURN(auto model, LoadModel(a.model));
  BRAID_ASSIGN_OR_RETURN(auto seq, ParseSize(a.seq, "--seq"));
  int64_t batch = 1;
  if (!a.batch.empty()) {
    BRAID_ASSIGN_OR_RETURN(auto b, ParseSize(a.batch, "--batch"));
    batch = b;
  }
  BRAID_ASSIGN_OR_RETURN(auto phase, ParsePhase(a.phase));
  std::optional<bool> sp;
  const bool ulysses = a.sequence_parallel == "ulysses";
  if (a.sequence_parallel == "on") {
    sp = true;
  } else if (a.sequence_parallel == "off") {
    sp = false;
  } else if (!a.sequence_parallel.empty() && !ulysses) {
    return Status::Invalid("--sequence-parallel '" + OneLine(a.sequence_parallel) + "': use on, off or ulysses");
  }
  BRAID_ASSIGN_OR_RETURN(auto dt, ParseDType(a.dtype));
  if (a.tp <= 0) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(a.tp) + ")");
  if (ulysses) return MakeUlyssesLayerWorkload(model, seq, batch, phase, a.tp, dt);
  return MakeLayerWorkload(model, seq, batch, phase, a.tp, dt, sp);
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
