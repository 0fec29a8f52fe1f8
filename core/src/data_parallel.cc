#include "braid/data_parallel.h"

#include <algorithm>
#include <array>
#include <optional>

#include "braid/name_table.h"

namespace braid {

namespace {

constexpr NameTable<ZeroStage, 4> kZeroStageNames{{
    {ZeroStage::kNone, "none"},
    {ZeroStage::k1, "1"},
    {ZeroStage::k2, "2"},
    {ZeroStage::k3, "3"},
}};
static_assert(IsOneToOne(kZeroStageNames));

}  // namespace

std::string_view ZeroStageName(ZeroStage z) { return NameIn(kZeroStageNames, z); }

Result<ZeroStage> ParseZeroStage(std::string_view text) {
  if (text == "0") return ZeroStage::kNone;  // "0" also says no ZeRO (DeepSpeed's stage 0)
  if (std::optional<ZeroStage> z = ValueNamed(kZeroStageNames, text)) return *z;
  return Status::Invalid("`zero` must be 1, 2 or 3 (or 0 / none for plain data parallelism), got '" + OneLine(text) +
                         "'");
}

std::string_view DpOpKindName(DpOpKind k) { return k == DpOpKind::kGradReduce ? "grad_reduce" : "param_gather"; }

int64_t GradParams(const std::vector<DpOp>& ops) {
  int64_t params = 0;
  for (const DpOp& op : ops) params += op.kind == DpOpKind::kGradReduce ? op.params() : 0;
  return params;
}

bool PlansDpOps(Algorithm a) {
  return a == Algorithm::kSerial || a == Algorithm::kChunked || a == Algorithm::kRing || a == Algorithm::kBidirRing ||
         a == Algorithm::kDirect;
}

int64_t DpOp::bytes() const { return params() * DTypeBytes(gemm.DefaultCommDType()); }

namespace {

// The TP shard W_s of the linear whose forward op is `fwd` (header).
std::pair<int64_t, int64_t> WeightShard(const LayerOp& fwd, int tp) {
  const int64_t in = fwd.gemm.k, out = fwd.gemm.n;
  return fwd.column ? std::pair{in, out / tp} : std::pair{in / tp, out};
}

Status ShardDivides(const std::string& linear, const char* what, int64_t size, int dp, const char* why) {
  if (size % dp == 0) return Status::Ok();
  return Status::Invalid("`dp` " + std::to_string(dp) + " does not divide " + linear + "'s weight " + what + " " +
                         std::to_string(size) + " (" + why + ")");
}

// The op of `linear`'s weight shard (rows × cols) as the GEMM `op` M×N×K over dp ranks.
Result<DpOp> MakeOp(const LayerWorkload& train, const std::string& linear, const char* suffix, DpOpKind kind,
                    std::pair<int64_t, int64_t> shard, Op op, int64_t m, int64_t n, int64_t k, int dp) {
  DpOp out;
  out.name = linear + suffix;
  out.linear = linear;
  out.kind = kind;
  out.weight_rows = shard.first;
  out.weight_cols = shard.second;
  out.gemm = {op, m, n, k, train.dtype, dp};
  if (Status s = out.gemm.Validate(); !s.ok()) return Status::Invalid(out.name + ": " + s.message());
  return out;
}

Result<DpOp> GradReduce(const LayerWorkload& train, const LayerOp& fwd, int dp, ZeroStage zero) {
  const auto [rows, cols] = WeightShard(fwd, train.tp);
  const bool scatter = zero != ZeroStage::kNone;
  if (scatter) {
    BRAID_RETURN_IF_ERROR(ShardDivides(fwd.linear, "rows", rows, dp, "ZeRO reduce-scatters each gradient's rows"));
  }
  return MakeOp(train, fwd.linear, scatter ? ".grad_rs" : ".grad_ar", DpOpKind::kGradReduce, {rows, cols},
                scatter ? Op::kGemmRs : Op::kGemmAr, rows, cols, train.tokens() * dp, dp);
}

Result<DpOp> ParamGather(const LayerWorkload& train, const LayerOp& fwd, int dp) {
  const auto [rows, cols] = WeightShard(fwd, train.tp);
  BRAID_RETURN_IF_ERROR(ShardDivides(fwd.linear, "columns", cols, dp, "ZeRO gathers each weight's columns"));
  return MakeOp(train, fwd.linear, ".param_ag", DpOpKind::kParamGather, {rows, cols}, Op::kAgGemm, cols,
                train.tokens() * dp, rows, dp);
}

const LayerOp* ForwardOf(const LayerWorkload& train, std::string_view linear) {
  for (const LayerOp& op : train.ops) {
    if (op.linear == linear && op.pass == Pass::kFprop && op.kind != LayerOpKind::kAttention) return &op;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<DpOp>> MakeDpOps(const LayerWorkload& train, int dp, ZeroStage zero) {
  if (dp < 1) return Status::Invalid("`dp` must be at least 1 (got " + std::to_string(dp) + ")");
  if (train.phase != Phase::kTrain) {
    return Status::Invalid("`dp` needs a training step (phase train): only training reduces gradients");
  }
  std::vector<DpOp> ops;
  if (dp == 1) return ops;
  constexpr std::array<std::string_view, 4> kBackward = {"fc2", "fc1", "out_proj", "qkv"};
  constexpr std::array<std::string_view, 4> kForward = {"qkv", "out_proj", "fc1", "fc2"};
  for (std::string_view linear : kBackward) {
    const LayerOp* fwd = ForwardOf(train, linear);
    if (fwd == nullptr) return Status::Invalid("the block has no " + std::string(linear) + " forward op");
    BRAID_ASSIGN_OR_RETURN(DpOp op, GradReduce(train, *fwd, dp, zero));
    ops.push_back(std::move(op));
  }
  if (zero == ZeroStage::kNone) return ops;
  for (std::string_view linear : kForward) {
    BRAID_ASSIGN_OR_RETURN(DpOp op, ParamGather(train, *ForwardOf(train, linear), dp));
    ops.push_back(std::move(op));
  }
  return ops;
}

Result<Topology> DpGroupTopology(const Topology& topo, int tp, int dp) {
  if (tp < 1 || dp < 1) return Status::Invalid("`tp` and `dp` must be at least 1");
  const int64_t grid = int64_t(tp) * dp;
  if (grid > topo.total_gpus()) {
    return Status::Invalid("`dp` " + std::to_string(dp) + " with `tp` " + std::to_string(tp) + " needs " +
                           std::to_string(grid) + " GPUs; topology '" + topo.name + "' has " +
                           std::to_string(topo.total_gpus()));
  }
  const int node = std::max(topo.gpus_per_node, 1);
  if (dp > 1 && node % tp != 0 && tp % node != 0) {
    return Status::Invalid("`dp` needs TP groups that tile the nodes: `tp` " + std::to_string(tp) +
                           " must divide the GPUs per node (" + std::to_string(node) + ") or be a multiple of it");
  }
  Topology view = topo;
  view.name = topo.name + " (dp group of " + std::to_string(dp) + ", tp " + std::to_string(tp) + ")";
  // One of every tp GPUs of a node (a TP group spanning nodes leaves one).
  const int per_node = tp <= node ? node / tp : 1;
  const int domain = topo.domain_gpus();
  const int per_domain = tp <= domain ? std::max(domain / tp, 1) : 1;
  view.gpus_per_node = std::min(per_node, dp);
  if (per_domain >= dp) {
    view.nodes = (dp + view.gpus_per_node - 1) / view.gpus_per_node;
    view.nvlink_domain_gpus = view.nodes > 1 ? view.gpus_per_node * view.nodes : 0;
  } else {
    const int domains = (dp + per_domain - 1) / per_domain;
    view.nodes = domains * std::max(per_domain / view.gpus_per_node, 1);
    view.nvlink_domain_gpus = per_domain > view.gpus_per_node ? per_domain : 0;
  }
  view.has_pair = topo.has_pair && tp == 1;
  // Every column's DP group leaves the node at once: this group's GPUs of a
  // node get their share of its NICs.
  const double nics = double(topo.inter.nics_per_node) * double(view.gpus_per_node) / double(node);
  if (nics >= 1.0) {
    view.inter.nics_per_node = int(nics);
    view.inter.bandwidth_gbs = topo.inter.bandwidth_gbs * nics / double(int(nics));
  } else {
    view.inter.nics_per_node = 1;
    view.inter.bandwidth_gbs = topo.inter.bandwidth_gbs * nics;
  }
  // nics_per_node must divide gpus_per_node (topology.h); keep the rate.
  while (view.gpus_per_node % view.inter.nics_per_node != 0) {
    const int n = view.inter.nics_per_node;
    view.inter.nics_per_node = n - 1;
    view.inter.bandwidth_gbs *= double(n) / double(n - 1);
  }
  return view;
}

}  // namespace braid
