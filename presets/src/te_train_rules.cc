#include "te_train_rules.h"

namespace braid::detail {

namespace {

bool TakesBulk(const LayerOp& op) { return op.column && op.pass != Pass::kFprop; }
bool TakesExternal(const LayerOp& op) { return !op.column && op.pass == Pass::kWgrad; }

std::string Omitted(const std::string& why) { return "omitted: " + why; }

}  // namespace

OverlapConfig ConfigTeTakes(const LayerOp& op, const OverlapConfig& config, std::vector<std::string>& comments) {
  const Algorithm a = config.algorithm;
  if ((a != Algorithm::kBulk || TakesBulk(op)) && (a != Algorithm::kExternal || TakesExternal(op))) return config;
  const std::string where = a == Algorithm::kBulk ? "a column-parallel layer's dgrad and wgrad (qkv, fc1)"
                                                  : "a row-parallel layer's wgrad (out_proj, fc2)";
  comments.push_back("not expressible: " + std::string(AlgorithmName(a)) + " for " + op.name + " (TE takes it for " +
                     where + " only); written as serial");
  OverlapConfig serial = config;
  serial.algorithm = Algorithm::kSerial;
  serial.chunks = 1;
  serial.splits.clear();
  return serial;
}

void FitWgradToDgrad(const LayerOp& op, const TeUbCfg& dgrad, const OverlapConfig& preset_config, int tp,
                     int default_comm_sms, TeUbCfg& wgrad) {
  const std::string dgrad_method(TeMethodName(dgrad.te.method));
  if (op.column) {
    if (dgrad.te.method != TeMethod::kBulk) {
      // TE raises on a column wgrad entry beside a non-bulk dgrad, and then
      // gives the wgrad GEMM no userbuffer at all.
      wgrad.omitted = true;
      wgrad.te.comments = {Omitted(dgrad.key + " is " + dgrad_method + ", not bulk: TE refuses a " + wgrad.key +
                                   " entry then and runs this wgrad GEMM without overlap")};
      return;
    }
    if (wgrad.te.method == TeMethod::kBulk) return;
    // TE's bulk overlap is one pair: the wgrad's all-gather beside the dgrad
    // GEMM and the dgrad's reduce-scatter beside the wgrad GEMM.
    OverlapConfig bulk = preset_config;
    bulk.algorithm = Algorithm::kBulk;
    bulk.chunks = 1;
    bulk.splits.clear();
    const int fp8_buf = wgrad.te.fp8_buf;  // what its buffer holds does not change
    wgrad.te = MapToTe(bulk, op.gemm.op, tp, default_comm_sms);
    wgrad.te.fp8_buf = fp8_buf;
    wgrad.te.comments.insert(wgrad.te.comments.begin(),
                             "not expressible: " + std::string(AlgorithmName(preset_config.algorithm)) +
                                 " beside a bulk " + dgrad.key +
                                 " (TE overlaps a column layer's dgrad and wgrad together or not at all); written "
                                 "as bulk");
    return;
  }
  if (wgrad.te.method == TeMethod::kExternal && dgrad.te.method == TeMethod::kRingExchange) return;
  wgrad.omitted = true;
  if (wgrad.te.method == TeMethod::kExternal) {
    wgrad.te.comments = {Omitted("external is fed by its dgrad's ring exchange, and " + dgrad.key + " is " +
                                 dgrad_method + "; TE refuses external then")};
    return;
  }
  // This GEMM multiplies the dY its dgrad gathered: it has no collective to
  // overlap unless it is external. TE refuses any other method for the key,
  // and a key left out keeps TE's default (external, which TE uses only
  // beside the dgrad's ring_exchange all-gather).
  wgrad.te.comments = {Omitted("braid config " + std::string(AlgorithmName(preset_config.algorithm)) +
                               " (no overlap: this GEMM has no collective of its own); TE takes only external for " +
                               wgrad.key + ", so the key is left to TE's default")};
}

}  // namespace braid::detail
