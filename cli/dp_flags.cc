#include "dp_flags.h"

namespace braid::cli {

namespace {

constexpr const char* kDpFlags[] = {"--zero",    "--fsdp",      "--dp-schedule", "--bucket-size", "--decomposed-layers",
                                    "--dp-algo", "--dp-chunks", "--prefetch",    "--dp-comm-sms", "--layers",
                                    "--dp-op"};

// A flag the command does not have (tune has only the grid's) is not given.
bool Given(const DpArgs& a, const char* flag) {
  const CLI::Option* o = a.app != nullptr ? a.app->get_option_no_throw(flag) : nullptr;
  return o != nullptr && o->count() > 0;
}

}  // namespace

void AddDpGridOptions(CLI::App* sub, DpArgs* a) {
  sub->add_option("--dp", a->dp, "data-parallel ranks beside --tp (a TP x DP grid; --phase train)")
      ->capture_default_str();
  sub->add_option("--zero", a->zero, "0 | 1 | 2 | 3: which DP collectives run (ZeRO stages; default 0: all-reduce)");
  sub->add_flag("--fsdp", a->fsdp, "PyTorch FSDP's full sharding: --zero 3");
  sub->add_option("--dp-comm-sms", a->comm_sms, "SMs of the DP collectives (0: the topology's NCCL channels)")
      ->capture_default_str();
  sub->add_option("--layers", a->layers, "blocks in the step (0: the model's)")->capture_default_str();
  a->app = sub;
}

void AddDpOptions(CLI::App* sub, DpArgs* a) {
  AddDpGridOptions(sub, a);
  sub->add_option("--dp-schedule", a->schedule,
                  "serial | bucketed | decomposed: DP gradients after the backward, in buckets beside it "
                  "(Megatron's --overlap-grad-reduce), or decomposed into the wgrad GEMMs (CommFuse)")
      ->capture_default_str();
  sub->add_option("--bucket-size", a->bucket_size,
                  "parameters a gradient bucket holds (default Megatron's: max(40000000, 1000000 x dp))");
  sub->add_option("--decomposed-layers", a->decomposed_layers,
                  "decomposed: how many of the layers the backward reaches last are decomposed (-1: all)")
      ->capture_default_str();
  sub->add_option("--dp-algo", a->algo, "decomposed: the DP gradients' plan: ring | bidir_ring | direct | chunked")
      ->capture_default_str();
  sub->add_option("--dp-chunks", a->chunks, "decomposed: chunks of the DP gradients' plan")->capture_default_str();
  sub->add_option("--prefetch", a->prefetch, "ZeRO: parameter gathers queued ahead of their layer")
      ->capture_default_str();
  sub->add_option("--dp-op", a->op,
                  "run one DP op of the block alone on its DP group (fc1.grad_rs, qkv.param_ag, ...): "
                  "--algo and its knobs plan it, --verify checks it on cpu");
  a->app = sub;
}

bool DpRequested(const DpArgs& a) {
  if (a.dp != 1) return true;
  for (const char* flag : kDpFlags) {
    if (Given(a, flag)) return true;
  }
  return false;
}

Result<DpSetup> DpSetupFromArgs(const DpArgs& a) {
  if (a.dp < 1) return Status::Invalid("--dp must be at least 1 (got " + std::to_string(a.dp) + ")");
  if (a.dp == 1) {
    for (const char* flag : kDpFlags) {
      if (Given(a, flag)) return Status::Invalid(std::string(flag) + " needs --dp 2 or more");
    }
  }
  DpSetup d;
  d.dp = a.dp;
  if (!a.zero.empty()) {
    BRAID_ASSIGN_OR_RETURN(d.zero, ParseZeroStage(a.zero));
  }
  if (a.fsdp) {
    if (!a.zero.empty() && d.zero != ZeroStage::k3) {
      return Status::Invalid("--fsdp is --zero 3; --zero " + a.zero + " says otherwise");
    }
    d.zero = ZeroStage::k3;
  }
  BRAID_ASSIGN_OR_RETURN(d.schedule, ParseDpSchedule(a.schedule));
  if (a.bucket_size) {
    if (*a.bucket_size < 1) {
      return Status::Invalid("--bucket-size must be at least 1 parameter (got " + std::to_string(*a.bucket_size) + ")");
    }
    d.bucket_params = *a.bucket_size;
  }
  if (a.decomposed_layers < -1) return Status::Invalid("--decomposed-layers must be -1 (all) or 0 or more");
  if (Given(a, "--decomposed-layers") && d.schedule != DpSchedule::kDecomposed) {
    return Status::Invalid("--decomposed-layers needs --dp-schedule decomposed");
  }
  d.decomposed_layers = a.decomposed_layers;
  BRAID_ASSIGN_OR_RETURN(d.decomposition.algorithm, ParseAlgorithm(a.algo));
  if (a.chunks < 1) return Status::Invalid("--dp-chunks must be at least 1 (got " + std::to_string(a.chunks) + ")");
  d.decomposition.chunks = a.chunks;
  if (a.prefetch < 1) return Status::Invalid("--prefetch must be at least 1 (got " + std::to_string(a.prefetch) + ")");
  if (Given(a, "--prefetch") && d.zero == ZeroStage::kNone) {
    return Status::Invalid("--prefetch applies to parameter gathers: it needs --zero 1, 2, 3 or --fsdp");
  }
  d.prefetch = a.prefetch;
  if (a.comm_sms < 0) {
    return Status::Invalid("--dp-comm-sms must be 0 or more (got " + std::to_string(a.comm_sms) + ")");
  }
  d.comm_sms = a.comm_sms;
  if (a.layers < 0) return Status::Invalid("--layers must be 0 (the model's) or more");
  return d;
}

std::string DpArgsKey(const DpArgs& a) {
  return std::to_string(a.dp) + '\x1f' + a.zero + '\x1f' + std::to_string(a.fsdp) + '\x1f' + a.schedule + '\x1f' +
         std::to_string(a.bucket_size.value_or(0)) + '\x1f' + std::to_string(a.decomposed_layers) + '\x1f' + a.algo +
         '\x1f' + std::to_string(a.chunks) + '\x1f' + std::to_string(a.prefetch) + '\x1f' + std::to_string(a.comm_sms) +
         '\x1f' + std::to_string(a.layers) + '\x1f' + a.op;
}

}  // namespace braid::cli
