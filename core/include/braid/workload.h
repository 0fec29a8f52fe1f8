// A workload: one tensor-parallel GEMM pattern. Sizes are the full,
// unsharded GEMM C[M×N] = A[M×K]·B[K×N]; P is the TP degree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "braid/budgets.h"
#include "braid/status.h"

namespace braid {

enum class Op {
  kAgGemm,  // all-gather A rows, then GEMM with a column shard of B
  kGemmRs,  // GEMM over a K shard, reduce-scatter partials over M
  kGemmAr,  // GEMM over a K shard, all-reduce partials
};

// GEMM input element types. The FP8 formats are OCP's E4M3 (no infinities,
// max 448) and E5M2 (IEEE-like, max 57344), each with a per-tensor scale, as
// Hopper's tensor cores and TransformerEngine use them; an FP8 GEMM writes
// bf16 (Workload::OutDType), as TransformerEngine's do by default.
enum class DType { kBf16, kFp16, kFp32, kFp8E4m3, kFp8E5m2 };

std::string_view OpName(Op op);
Result<Op> ParseOp(std::string_view name);
std::string_view DTypeName(DType d);  // "bf16", "fp8_e4m3", ...
// "fp8" alone is refused as ambiguous: it names both formats.
Result<DType> ParseDType(std::string_view name);
int DTypeBytes(DType d);
inline bool IsFp8(DType d) { return d == DType::kFp8E4m3 || d == DType::kFp8E5m2; }
// What a GEMM with inputs of dtype `in` writes: bf16 for FP8, else `in`.
inline DType GemmOutDType(DType in) { return IsFp8(in) ? DType::kBf16 : in; }

struct Workload {
  Op op = Op::kGemmRs;
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::kBf16;
  int tp = 1;  // P

  // Sizes positive, P >= 1, and the shards the op needs divide evenly:
  // ag_gemm shards N by P; gemm_rs / gemm_ar shard K by P; gemm_rs also
  // scatters M by P; FLOPs and bytes within the limits above
  // (CheckFitsEventTimes). The message names the size and the rule.
  Status Validate() const;
  // 2·M·N·K FLOPs at most kMaxWorkloadFlops and every matrix's bytes at
  // most kMaxWorkloadBytes; the message names the limit.
  Status CheckFitsEventTimes() const;

  // The element type of C and of the partial sums a reduce-scatter or
  // all-reduce moves: bf16 for an FP8 GEMM, the input dtype otherwise.
  DType OutDType() const { return GemmOutDType(dtype); }
  // What the op's communication moves when the config does not say
  // (OverlapConfig::comm_dtype; CommDType in overlap_config.h decides): an
  // all-gather moves A in its own dtype (FP8 stays FP8, TransformerEngine's
  // `fp8_buf` for all-gathers); a reduce-scatter or all-reduce moves OutDType.
  DType DefaultCommDType() const { return op == Op::kAgGemm ? dtype : OutDType(); }

  // Total FLOPs of the unsharded GEMM (2·M·N·K).
  double Flops() const { return 2.0 * double(m) * double(n) * double(k); }
  std::string Describe() const;  // "gemm_rs M=4096 N=8192 K=28672 bf16 P=8"
};

}  // namespace braid
