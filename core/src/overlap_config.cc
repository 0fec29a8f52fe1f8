#include "braid/overlap_config.h"

#include <charconv>
#include <sstream>

#include "braid/name_table.h"
#include "row_split.h"

namespace braid {

namespace {

// In the order a refusal lists them (not the enum's).
constexpr NameTable<Algorithm, 11> kAlgorithmNames{{
    {Algorithm::kSerial, "serial"},
    {Algorithm::kChunked, "chunked"},
    {Algorithm::kRing, "ring"},
    {Algorithm::kBidirRing, "bidir_ring"},
    {Algorithm::kDirect, "direct"},
    {Algorithm::kIso, "iso"},
    {Algorithm::kFused, "fused"},
    {Algorithm::kBulk, "bulk"},
    {Algorithm::kExternal, "external"},
    {Algorithm::kA2a, "a2a"},
    {Algorithm::kA2aDirect, "a2a_direct"},
}};
static_assert(IsOneToOne(kAlgorithmNames));

constexpr NameTable<CommEngine, 2> kCommEngineNames{{
    {CommEngine::kSm, "sm"},
    {CommEngine::kCopyEngine, "ce"},
}};
static_assert(IsOneToOne(kCommEngineNames));

}  // namespace

std::string_view AlgorithmName(Algorithm a) { return NameIn(kAlgorithmNames, a); }

Result<Algorithm> ParseAlgorithm(std::string_view name) { return ParseNamed(kAlgorithmNames, "algorithm", name); }

bool IsPeerToPeer(Algorithm a) {
  return a == Algorithm::kRing || a == Algorithm::kBidirRing || a == Algorithm::kDirect || IsUlysses(a);
}

bool IsUlysses(Algorithm a) { return a == Algorithm::kA2a || a == Algorithm::kA2aDirect; }

bool CommMovesA(Op op, Algorithm a) { return IsUlysses(a) ? op == Op::kGemmRs : op == Op::kAgGemm; }

std::string_view CommEngineName(CommEngine e) { return NameIn(kCommEngineNames, e); }

Result<CommEngine> ParseCommEngine(std::string_view name) { return ParseNamed(kCommEngineNames, "comm engine", name); }

Result<std::vector<int>> ParseSplits(std::string_view text) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    int v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v <= 0) {
      return Status::Invalid("`splits` '" + OneLine(text) +
                             "': each weight must be a positive integer, comma separated");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

namespace {

// Rows that one chunk or sub-chunk subdivides, and what they are called.
struct SplitTarget {
  int64_t rows;
  int parts;  // extra factor (bidir halves each block)
  const char* what;
};

SplitTarget TargetFor(const Workload& w, Algorithm a) {
  const bool blocked = w.op != Op::kGemmAr || IsPeerToPeer(a);
  if (!blocked) return {w.m, 1, "rows of M"};
  if (a == Algorithm::kBidirRing) return {w.m / w.tp / 2, 2, "rows per half block (M/P/2)"};
  return {w.m / w.tp, 1, "rows per rank block (M/P)"};
}

}  // namespace

Status OverlapConfig::ValidateKnobs() const {
  if (chunks < 1) return Status::Invalid("`chunks` must be at least 1 (got " + std::to_string(chunks) + ")");
  if (comm_lanes < 1 || comm_lanes > 8) {
    return Status::Invalid("`comm_lanes` must be between 1 and 8 (got " + std::to_string(comm_lanes) + ")");
  }
  if (comm_sms < 0) return Status::Invalid("`comm_sms` must not be negative");
  if (wgrad_comm_sms < 0) return Status::Invalid("`wgrad_comm_sms` must not be negative");
  if (wgrad_comm_sms > 0 && algorithm != Algorithm::kBulk) {
    return Status::Invalid(
        "`wgrad_comm_sms` is the SM budget of a bulk pair's reduce-scatter: it applies to bulk only");
  }
  // serial and a2a run their GEMMs and their comm one after the other.
  const bool nothing_beside = algorithm == Algorithm::kSerial || algorithm == Algorithm::kA2a;
  if (sm_margin && (nothing_beside || algorithm == Algorithm::kFused)) {
    return Status::Invalid("`sm_margin` keeps SMs free for a comm kernel beside the GEMM: " +
                           (nothing_beside ? std::string(AlgorithmName(algorithm)) + " runs none beside it"
                                           : std::string("fused splits its own SMs (`comm_sms`)")));
  }
  return Status::Ok();
}

DType DefaultCommDType(const Workload& w, Algorithm a) {
  if (!IsUlysses(a)) return w.DefaultCommDType();
  return CommMovesA(w.op, a) ? w.dtype : w.OutDType();
}

DType CommDType(const Workload& w, const OverlapConfig& c) {
  return c.comm_dtype.value_or(DefaultCommDType(w, c.algorithm));
}

Status CheckCommDType(const Workload& w, const OverlapConfig& c, Algorithm a) {
  if (!c.comm_dtype.has_value() || *c.comm_dtype == DefaultCommDType(w, a)) return Status::Ok();
  const DType d = *c.comm_dtype;
  const std::string dn(DTypeName(d)), wn(DTypeName(w.dtype));
  if (!IsFp8(w.dtype)) {
    return Status::Invalid("`comm_dtype` " + dn + " applies to FP8 GEMMs only: a " + wn + " GEMM moves " + wn);
  }
  if (d != w.dtype && d != w.OutDType()) {
    return Status::Invalid("`comm_dtype` " + dn + " does not fit a " + wn + " GEMM: it moves " + wn +
                           " (its input) or " + std::string(DTypeName(w.OutDType())) + " (its output)");
  }
  if (IsUlysses(a)) {
    // gemm_rs moves A, which may travel in bf16 and be cast after, as an
    // all-gather's may; ag_gemm moves finished products, which FP8 would round.
    if (IsFp8(d) && !CommMovesA(w.op, a)) {
      return Status::Invalid("`comm_dtype` " + dn + " would round " + std::string(AlgorithmName(a)) +
                             "'s finished ag_gemm products to FP8: use `comm_dtype` auto or " +
                             std::string(DTypeName(w.OutDType())));
    }
    return Status::Ok();
  }
  if (IsFp8(d) && w.op != Op::kAgGemm && a != Algorithm::kRing && a != Algorithm::kBidirRing) {
    return Status::Invalid("`comm_dtype` " + dn + " makes " + std::string(OpName(w.op)) +
                           " reduce FP8 partial sums, which only ring and bidir_ring can do (each step adds "
                           "them in fp32); " +
                           std::string(AlgorithmName(a)) + " reduces in the wire dtype: use ring or bidir_ring" +
                           (w.op == Op::kGemmAr ? " with gemm_rs (sequence parallelism on)" : "") +
                           ", or `comm_dtype` auto or " + std::string(DTypeName(w.OutDType())));
  }
  return Status::Ok();
}

Result<std::optional<DType>> ParseCommDType(std::string_view name) {
  if (name == "auto") return std::optional<DType>();
  Result<DType> d = ParseDType(name);
  if (!d.ok()) return Status::Invalid("comm dtype: " + d.status().message() + "; or auto");
  return std::optional<DType>(*d);
}

Status OverlapConfig::Validate(const Workload& w) const {
  BRAID_RETURN_IF_ERROR(w.Validate());
  BRAID_RETURN_IF_ERROR(ValidateKnobs());
  BRAID_RETURN_IF_ERROR(CheckCommDType(w, *this, algorithm));
  if (algorithm == Algorithm::kIso) {
    return Status::Invalid(
        "iso splits a layer's sequence: it applies to layer workloads only "
        "(`model` NAME `seq` L `batch` B), not to a single op");
  }
  if (algorithm == Algorithm::kBulk || algorithm == Algorithm::kExternal) {
    return Status::Invalid(std::string(AlgorithmName(algorithm)) +
                           " is a backward method of a linear layer: it applies to training layers "
                           "(`model` NAME `phase` train) only, not to a single op");
  }
  if (algorithm == Algorithm::kFused) {
    if (w.op == Op::kGemmAr) {
      return Status::Invalid(
          "fused does not apply to gemm_ar: its kernel moves tiles for an all-gather "
          "(ag_gemm) or a reduce-scatter (gemm_rs); use gemm_rs + ag_gemm "
          "(sequence parallelism on) or another algorithm");
    }
    if (w.dtype == DType::kFp8E5m2) {
      // The tasks kernel's mma.sync tiles are bf16 / fp16 / fp32
      // (kernels/cuda/fused); the GEMM core's FP8 path is E4M3 only. Which
      // engine runs fp8_e4m3 is the backend's to check.
      return Status::Invalid("fused has no " + std::string(DTypeName(w.dtype)) +
                             " kernel (its GEMM tiles are bf16, fp16 or fp32; the cuda backend's GEMM core takes "
                             "fp8_e4m3); for E5M2 use ring, bidir_ring, chunked or serial");
    }
    if (chunks != 1 || !splits.empty()) {
      return Status::Invalid(
          "fused moves and computes tile by tile: it takes no `chunks` or `splits` "
          "(got `chunks` " +
          std::to_string(chunks) + ")");
    }
    if (w.m % w.tp != 0) {
      return Status::Invalid("fused needs M=" + std::to_string(w.m) + " divisible by P=" + std::to_string(w.tp) +
                             " (one block per rank)");
    }
    return Status::Ok();
  }
  // Ulysses' blocks are the shards w.Validate() already requires to divide:
  // M/P rows per sequence shard, and ag_gemm's N/P column blocks or
  // gemm_rs's K/P shards, one per peer.
  if (IsUlysses(algorithm) && w.op == Op::kGemmAr) {
    return Status::Invalid(std::string(AlgorithmName(algorithm)) +
                           " does not apply to gemm_ar: a Ulysses all-to-all follows the QKV projection "
                           "(ag_gemm) or precedes the out-projection (gemm_rs); choose another `algorithm`");
  }
  if (algorithm == Algorithm::kDirect && w.op == Op::kGemmAr) {
    return Status::Invalid(
        "direct does not apply to gemm_ar: it sends an all-gather's blocks or a reduce-scatter's "
        "partials straight to their owners; use gemm_rs + ag_gemm (sequence parallelism on) or ring");
  }
  if (algorithm == Algorithm::kSerial && (chunks != 1 || !splits.empty())) {
    return Status::Invalid("serial runs the collective whole: it takes no `chunks` or `splits`");
  }
  if (algorithm == Algorithm::kA2a && (chunks != 1 || !splits.empty())) {
    return Status::Invalid(
        "a2a runs the all-to-all whole, as the baseline: it takes no `chunks` or `splits` (a2a_direct "
        "sub-chunks its transfers)");
  }
  if (!splits.empty() && algorithm != Algorithm::kChunked) {
    return Status::Invalid("`splits` applies to the chunked algorithm only");
  }
  if (IsPeerToPeer(algorithm) && w.m % w.tp != 0) {
    return Status::Invalid(std::string(AlgorithmName(algorithm)) + " needs M=" + std::to_string(w.m) +
                           " divisible by P=" + std::to_string(w.tp) + " (one block per rank)");
  }
  const SplitTarget t = TargetFor(w, algorithm);
  if (algorithm == Algorithm::kBidirRing && (w.m / w.tp) % 2 != 0) {
    return Status::Invalid("bidir_ring halves each rank block: M/P=" + std::to_string(w.m / w.tp) + " must be even");
  }
  return SplitRows(t.rows, chunks, splits, t.what, algorithm == Algorithm::kChunked).status();
}

std::string OverlapConfig::Describe() const {
  std::ostringstream os;
  os << AlgorithmName(algorithm) << " chunks=" << chunks;
  if (!splits.empty()) {
    os << " splits=";
    for (size_t i = 0; i < splits.size(); ++i) os << (i ? "," : "") << splits[i];
  }
  os << " streams=" << comm_lanes;
  if (comm_sms > 0) os << " comm_sms=" << comm_sms;
  if (comm_engine == CommEngine::kCopyEngine) os << " engine=ce";
  if (!comm_high_priority) os << " priority=normal";
  if (comm_dtype.has_value()) os << " comm=" << DTypeName(*comm_dtype);
  if (sm_margin) os << " sm_margin";
  if (wgrad_comm_sms > 0) os << " wgrad_sms=" << wgrad_comm_sms;
  return os.str();
}

}  // namespace braid
