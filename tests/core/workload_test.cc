#include "braid/workload.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

TEST(Workload, ParsesOpsAndRejectsUnknownOnes) {
  EXPECT_EQ(*ParseOp("ag_gemm"), Op::kAgGemm);
  EXPECT_EQ(*ParseOp("gemm_rs"), Op::kGemmRs);
  EXPECT_EQ(*ParseOp("gemm_ar"), Op::kGemmAr);
  auto bad = ParseOp("gemm_xx");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown op 'gemm_xx'"), std::string::npos);
}

TEST(Workload, RejectsNonPositiveSizesAndTp) {
  Workload w{Op::kGemmRs, 0, 64, 64, DType::kFp32, 2};
  EXPECT_NE(w.Validate().message().find("sizes must be positive"), std::string::npos);
  w = {Op::kGemmRs, 64, 64, 64, DType::kFp32, 0};
  EXPECT_NE(w.Validate().message().find("`tp` must be at least 1"), std::string::npos);
}

TEST(Workload, ShardedDimensionsMustDivideByP) {
  Workload ag{Op::kAgGemm, 64, 30, 64, DType::kBf16, 4};
  EXPECT_NE(ag.Validate().message().find("N=30 is not divisible by the TP degree P=4"), std::string::npos);
  Workload rs{Op::kGemmRs, 66, 64, 64, DType::kBf16, 4};
  EXPECT_NE(rs.Validate().message().find("M=66"), std::string::npos);
  Workload ar{Op::kGemmAr, 66, 64, 64, DType::kBf16, 4};  // all-reduce does not scatter M
  EXPECT_TRUE(ar.Validate().ok());
  ar.k = 30;
  EXPECT_NE(ar.Validate().message().find("K=30"), std::string::npos);
}

TEST(Workload, SizesWhoseFlopsOrBytesOverflowEventTimesAreRefused) {
  constexpr int64_t k8G = int64_t(8) << 30;
  Workload huge{Op::kGemmRs, k8G, k8G, k8G, DType::kBf16, 8};
  Status s = huge.Validate();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("FLOPs exceeds the limit of 4.61e+18 (2^62)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("M=8589934592"), std::string::npos) << s.message();
  // FLOPs at the limit but a matrix too large: N = 1, fp32 A is 4·M·K bytes.
  Workload wide{Op::kGemmAr, int64_t(1) << 30, 1, int64_t(1) << 31, DType::kFp32, 8};
  EXPECT_EQ(wide.Flops(), kMaxWorkloadFlops);
  s = wide.Validate();
  EXPECT_NE(s.message().find("matrix A (M*K) holds 9.22e+18 bytes"), std::string::npos) << s.message();
  // The largest real shapes stay well inside: llama3-405b fc1 at 128k tokens.
  Workload big{Op::kAgGemm, 131072, 106496, 16384, DType::kFp32, 8};
  EXPECT_TRUE(big.Validate().ok()) << big.Validate().message();
}

TEST(Workload, FlopsAreTwoMNK) {
  Workload w{Op::kGemmAr, 2, 3, 5, DType::kFp32, 1};
  EXPECT_DOUBLE_EQ(w.Flops(), 60.0);
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST(Workload, Fp8DtypesParseAndPlainFp8IsAmbiguous) {
  EXPECT_EQ(*ParseDType("fp8_e4m3"), DType::kFp8E4m3);
  EXPECT_EQ(*ParseDType("fp8_e5m2"), DType::kFp8E5m2);
  for (DType d : {DType::kBf16, DType::kFp16, DType::kFp32, DType::kFp8E4m3, DType::kFp8E5m2}) {
    EXPECT_EQ(*ParseDType(DTypeName(d)), d);
  }
  EXPECT_EQ(DTypeBytes(DType::kFp8E4m3), 1);
  EXPECT_EQ(DTypeBytes(DType::kFp8E5m2), 1);
  EXPECT_TRUE(IsFp8(DType::kFp8E5m2));
  EXPECT_FALSE(IsFp8(DType::kBf16));
  auto plain = ParseDType("fp8");
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("'fp8' is ambiguous"), std::string::npos);
  EXPECT_NE(plain.status().message().find("fp8_e4m3"), std::string::npos);
}

TEST(Workload, AnFp8GemmWritesBf16AndItsAllGatherMovesFp8) {
  const Workload ag{Op::kAgGemm, 64, 64, 64, DType::kFp8E4m3, 2};
  EXPECT_EQ(ag.OutDType(), DType::kBf16);
  EXPECT_EQ(ag.DefaultCommDType(), DType::kFp8E4m3);
  const Workload rs{Op::kGemmRs, 64, 64, 64, DType::kFp8E5m2, 2};
  EXPECT_EQ(rs.DefaultCommDType(), DType::kBf16);  // partial sums travel in the output dtype
  const Workload fp32{Op::kGemmAr, 64, 64, 64, DType::kFp32, 2};
  EXPECT_EQ(fp32.OutDType(), DType::kFp32);
  EXPECT_EQ(fp32.DefaultCommDType(), DType::kFp32);
}

TEST(OneLine, EscapesControlCharactersSoErrorsStayOneLine) {
  EXPECT_EQ(OneLine("a\nb\tc\x01z"), "a\\nb\\tc\\x01z");
  EXPECT_EQ(OneLine("plain µs"), "plain µs");
  const std::string msg = ParseOp("gemm\nrs").status().message();
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown op 'gemm\\nrs'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace braid
