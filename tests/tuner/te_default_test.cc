#include <gtest/gtest.h>

#include "braid/comm_sms_effect.h"
#include "braid/te_default.h"

namespace braid {
namespace {

TEST(TeDefault, RingExchangeForAllGatherPipelineForReduceScatterNoneForAllReduce) {
  TeDefault ag = TeDefaultConfig({Op::kAgGemm, 8192, 8192, 8192, DType::kBf16, 8});
  EXPECT_EQ(ag.config.algorithm, Algorithm::kRing);
  EXPECT_EQ(ag.config.chunks, 1);
  EXPECT_EQ(ag.config.comm_engine, CommEngine::kCopyEngine);
  EXPECT_TRUE(ag.note.empty());

  TeDefault rs = TeDefaultConfig({Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, 8});
  EXPECT_EQ(rs.config.algorithm, Algorithm::kChunked);
  EXPECT_EQ(rs.config.chunks, 4);
  EXPECT_EQ(rs.config.comm_sms, 16);

  TeDefault ar = TeDefaultConfig({Op::kGemmAr, 8192, 8192, 8192, DType::kBf16, 8});
  EXPECT_EQ(ar.config.algorithm, Algorithm::kSerial);
}

// The baseline never records an SM budget that changes nothing (run --comm-sms refuses one).
TEST(TeDefault, SetsCommSmsOnlyWhereTheyTakeEffect) {
  int with_sms = 0;
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    for (int64_t m : {8192, 1020}) {
      const TeDefault d = TeDefaultConfig({op, m, 4096, 4096, DType::kBf16, 8});
      if (d.config.comm_sms == 0) continue;
      ++with_sms;
      EXPECT_TRUE(CommSmsTakeEffect(d.config, op)) << OpName(op) << " " << d.config.Describe();
    }
  }
  EXPECT_GT(with_sms, 0);
}

TEST(TeDefault, ShapesTheDefaultCannotSplitFallBackToSerialWithANote) {
  // M/P = 1020/8 is not whole: no ring exchange.
  TeDefault ag = TeDefaultConfig({Op::kAgGemm, 1020, 4096, 4096, DType::kBf16, 8});
  EXPECT_EQ(ag.config.algorithm, Algorithm::kSerial);
  EXPECT_NE(ag.note.find("TE default not applicable"), std::string::npos) << ag.note;
}

}  // namespace
}  // namespace braid
