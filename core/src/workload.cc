#include "braid/workload.h"

#include <cstdio>
#include <sstream>
#include <utility>

#include "braid/name_table.h"

namespace braid {

namespace {

constexpr NameTable<Op, 3> kOpNames{{
    {Op::kAgGemm, "ag_gemm"},
    {Op::kGemmRs, "gemm_rs"},
    {Op::kGemmAr, "gemm_ar"},
}};
static_assert(IsOneToOne(kOpNames));

constexpr NameTable<DType, 5> kDTypeNames{{
    {DType::kBf16, "bf16"},
    {DType::kFp16, "fp16"},
    {DType::kFp32, "fp32"},
    {DType::kFp8E4m3, "fp8_e4m3"},
    {DType::kFp8E5m2, "fp8_e5m2"},
}};
static_assert(IsOneToOne(kDTypeNames));

}  // namespace

std::string_view OpName(Op op) { return NameIn(kOpNames, op); }

Result<Op> ParseOp(std::string_view name) { return ParseNamed(kOpNames, "op", name); }

std::string_view DTypeName(DType d) { return NameIn(kDTypeNames, d); }

Result<DType> ParseDType(std::string_view name) {
  if (name == "fp8") {
    return Status::Invalid(
        "dtype 'fp8' is ambiguous: say fp8_e4m3 (forward: more precision) or fp8_e5m2 (gradients: more range)");
  }
  return ParseNamed(kDTypeNames, "dtype", name);
}

int DTypeBytes(DType d) {
  switch (d) {
    case DType::kFp32:
      return 4;
    case DType::kBf16:
    case DType::kFp16:
      return 2;
    case DType::kFp8E4m3:
    case DType::kFp8E5m2:
      return 1;
  }
  return 4;
}

Status Workload::Validate() const {
  if (m <= 0 || n <= 0 || k <= 0) {
    return Status::Invalid("sizes must be positive (got M=" + std::to_string(m) + " N=" + std::to_string(n) +
                           " K=" + std::to_string(k) + ")");
  }
  if (tp <= 0) return Status::Invalid("`tp` must be at least 1 (got " + std::to_string(tp) + ")");
  auto must_divide = [&](const char* what, int64_t size) -> Status {
    if (size % tp != 0) {
      return Status::Invalid(std::string(what) + "=" + std::to_string(size) +
                             " is not divisible by the TP degree P=" + std::to_string(tp) + " (" +
                             std::string(OpName(op)) + " shards " + what + " over P ranks)");
    }
    return Status::Ok();
  };
  BRAID_RETURN_IF_ERROR(CheckFitsEventTimes());
  switch (op) {
    case Op::kAgGemm:
      BRAID_RETURN_IF_ERROR(must_divide("M", m));
      return must_divide("N", n);
    case Op::kGemmRs:
      BRAID_RETURN_IF_ERROR(must_divide("M", m));
      return must_divide("K", k);
    case Op::kGemmAr:
      return must_divide("K", k);
  }
  return Status::Ok();
}

Status Workload::CheckFitsEventTimes() const {
  char buf[64];
  auto sci = [&](double v) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  const std::string sizes = "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
  if (Flops() > kMaxWorkloadFlops) {
    return Status::Invalid(sizes + " is too large: 2*M*N*K = " + sci(Flops()) + " FLOPs exceeds the limit of " +
                           sci(kMaxWorkloadFlops) + " (2^62), beyond which 64-bit nanosecond event times overflow");
  }
  const double b = double(DTypeBytes(dtype)), c = double(DTypeBytes(OutDType()));
  for (auto [name, bytes] : {std::pair{"A (M*K)", double(m) * double(k) * b},
                             {"B (K*N)", double(k) * double(n) * b},
                             {"C (M*N)", double(m) * double(n) * c}}) {
    if (bytes > kMaxWorkloadBytes) {
      return Status::Invalid(sizes + " is too large: matrix " + name + " holds " + sci(bytes) +
                             " bytes, over the limit of " + sci(kMaxWorkloadBytes) +
                             " (2^62), beyond which 64-bit nanosecond event times overflow");
    }
  }
  return Status::Ok();
}

std::string Workload::Describe() const {
  std::ostringstream os;
  os << OpName(op) << " M=" << m << " N=" << n << " K=" << k << ' ' << DTypeName(dtype) << " P=" << tp;
  return os.str();
}

}  // namespace braid
