// Unit tests of the TransformerEngine ub_cfgs export (presets/include/braid/te_export.h):
// the config mapping, one algorithm at a time. te_export_yaml_test.cc checks
// the YAML text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "braid/te_export.h"

namespace braid {
namespace {

using ::testing::IsEmpty;

constexpr int kTp = 8;
constexpr int kDefaultSms = 24;

OverlapConfig Config(Algorithm a, int chunks = 1) {
  OverlapConfig c;
  c.algorithm = a;
  c.chunks = chunks;
  return c;
}

// True when some comment contains `text`.
bool Mentions(const TeSettings& t, const std::string& text) {
  for (const std::string& c : t.comments) {
    if (c.find(text) != std::string::npos) return true;
  }
  return false;
}

int NotExpressible(const TeSettings& t) {
  int n = 0;
  for (const std::string& c : t.comments) n += c.rfind("not expressible", 0) == 0;
  return n;
}

void ExpectRingExchange(const TeSettings& t, int use_ce, int num_sm = 1) {
  EXPECT_EQ(t.method, TeMethod::kRingExchange);
  EXPECT_EQ(t.num_splits, kTp);
  EXPECT_EQ(t.num_sm, num_sm);
  EXPECT_EQ(t.cga_size, 1);
  EXPECT_EQ(t.set_sm_margin, 0);
  EXPECT_EQ(t.use_ce, use_ce);
}

TEST(TeExportMap, RingIsRingExchangeWithOneStepPerRank) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const TeSettings t = MapToTe(Config(Algorithm::kRing), op, kTp, kDefaultSms);
    ExpectRingExchange(t, 0);
    EXPECT_EQ(t.atomic_gemm, 0);
    EXPECT_EQ(NotExpressible(t), 0) << "a plain ring loses nothing";
  }
  OverlapConfig ce = Config(Algorithm::kRing);
  ce.comm_engine = CommEngine::kCopyEngine;
  ExpectRingExchange(MapToTe(ce, Op::kGemmRs, kTp, kDefaultSms), 1);
}

// The SM copy kernel's budget is TE's num_sm (use_ce 0); sub-chunks and a
// second stream are not expressible.
TEST(TeExportMap, RingSubChunksAreListedAndItsSmBudgetIsNumSm) {
  OverlapConfig c = Config(Algorithm::kRing, 2);
  c.comm_sms = 16;
  c.comm_lanes = 2;
  const TeSettings t = MapToTe(c, Op::kGemmRs, kTp, kDefaultSms);
  ExpectRingExchange(t, 0, 16);
  EXPECT_TRUE(Mentions(t, "chunks=2")) << ::testing::PrintToString(t.comments);
  EXPECT_FALSE(Mentions(t, "comm_sms=16"));
  EXPECT_TRUE(Mentions(t, "streams=2"));
  EXPECT_EQ(NotExpressible(t), 2);
}

TEST(TeExportMap, BidirRingIsTheUnidirectionalRingWithAComment) {
  const TeSettings t = MapToTe(Config(Algorithm::kBidirRing), Op::kAgGemm, kTp, kDefaultSms);
  ExpectRingExchange(t, 0);
  EXPECT_TRUE(Mentions(t, "bidirectional ring not expressible in TE; nearest: unidirectional ring_exchange"));
}

// TE's ring_exchange reduce-scatter sends each step's partial straight to
// its owner: that is direct, so nothing is lost; its all-gather is a ring.
TEST(TeExportMap, DirectReduceScatterIsRingExchangeAndItsAllGatherTheNearest) {
  OverlapConfig ce = Config(Algorithm::kDirect);
  ce.comm_engine = CommEngine::kCopyEngine;
  const TeSettings rs = MapToTe(ce, Op::kGemmRs, kTp, kDefaultSms);
  ExpectRingExchange(rs, 1);
  EXPECT_EQ(NotExpressible(rs), 0) << ::testing::PrintToString(rs.comments);
  const TeSettings ag = MapToTe(Config(Algorithm::kDirect, 2), Op::kAgGemm, kTp, kDefaultSms);
  ExpectRingExchange(ag, 0);
  EXPECT_TRUE(Mentions(ag, "direct for an all-gather")) << ::testing::PrintToString(ag.comments);
  EXPECT_TRUE(Mentions(ag, "chunks=2"));
  EXPECT_EQ(NotExpressible(ag), 2);
}

TEST(TeExportMap, ChunkedReduceScatterIsPipeline) {
  for (bool margin : {false, true}) {
    OverlapConfig c = Config(Algorithm::kChunked, 4);
    c.comm_sms = 16;
    c.sm_margin = margin;
    const TeSettings t = MapToTe(c, Op::kGemmRs, kTp, kDefaultSms);
    EXPECT_EQ(t.method, TeMethod::kPipeline);
    EXPECT_EQ(t.num_splits, 4);
    EXPECT_EQ(t.num_sm, 16);
    EXPECT_EQ(t.cga_size, 2);
    EXPECT_EQ(t.set_sm_margin, margin ? 1 : 0);
    EXPECT_EQ(t.atomic_gemm, 0);
    EXPECT_EQ(t.use_ce, 1);  // TE's default: its pipeline ignores it
    EXPECT_THAT(t.comments, IsEmpty());
  }
}

TEST(TeExportMap, ChunkedDefaultSmsResolveAndLostKnobsAreListed) {
  OverlapConfig c = Config(Algorithm::kChunked, 4);
  c.splits = {2, 1, 1, 1};
  c.comm_lanes = 2;
  c.comm_engine = CommEngine::kCopyEngine;
  c.comm_high_priority = false;
  const TeSettings t = MapToTe(c, Op::kGemmRs, kTp, kDefaultSms);
  EXPECT_EQ(t.method, TeMethod::kPipeline);
  EXPECT_EQ(t.num_sm, kDefaultSms);
  EXPECT_TRUE(Mentions(t, "comm_sms=0 (backend default) written as num_sm 24"));
  EXPECT_TRUE(Mentions(t, "splits=[2,1,1,1]"));
  EXPECT_TRUE(Mentions(t, "TE splits evenly"));
  EXPECT_TRUE(Mentions(t, "streams=2"));
  EXPECT_TRUE(Mentions(t, "comm_engine=ce"));
  // Equal priorities are TE's comm_priority == gemm_priority.
  EXPECT_FALSE(Mentions(t, "comm_priority"));
  EXPECT_EQ(t.comm_priority, 0);
  EXPECT_EQ(t.gemm_priority, 0);
  EXPECT_EQ(NotExpressible(t), 3);

  OverlapConfig even = Config(Algorithm::kChunked, 2);
  even.splits = {1, 1};
  EXPECT_FALSE(Mentions(MapToTe(even, Op::kGemmRs, kTp, kDefaultSms), "splits"));
}

TEST(TeExportMap, ChunkedAllGatherFallsBackToRingExchange) {
  OverlapConfig c = Config(Algorithm::kChunked, 4);
  c.comm_engine = CommEngine::kCopyEngine;
  const TeSettings t = MapToTe(c, Op::kAgGemm, kTp, kDefaultSms);
  ExpectRingExchange(t, 1);
  EXPECT_EQ(t.atomic_gemm, 0);
  EXPECT_TRUE(Mentions(t, "pipeline method is not available for all-gather layers"));
  EXPECT_TRUE(Mentions(t, "chunks=4"));
}

// TE refuses atomic_gemm for every non-FP8 GEMM, and Braid's dtypes are never FP8.
TEST(TeExportMap, FusedIsTheNearestMethodTeAcceptsNeverAtomicGemm) {
  OverlapConfig c = Config(Algorithm::kFused);
  c.comm_sms = 8;
  const TeSettings rs = MapToTe(c, Op::kGemmRs, kTp, kDefaultSms);
  EXPECT_EQ(rs.method, TeMethod::kPipeline);
  EXPECT_EQ(rs.atomic_gemm, 0);
  EXPECT_EQ(rs.num_splits, kTp);
  EXPECT_EQ(rs.num_sm, 8);
  EXPECT_TRUE(Mentions(rs, "written as TE's nearest accepted method, pipeline"));
  EXPECT_TRUE(Mentions(rs, "atomic_gemm needs an FP8 GEMM"));

  // TE's userbuffers take at most 32 comm SMs.
  c.comm_sms = 48;
  const TeSettings wide = MapToTe(c, Op::kGemmRs, kTp, kDefaultSms);
  EXPECT_EQ(wide.num_sm, 32);
  EXPECT_TRUE(Mentions(wide, "num_sm 48 (TE userbuffers use at most 32 comm SMs; written as 32)"));

  const TeSettings ag = MapToTe(Config(Algorithm::kFused), Op::kAgGemm, kTp, kDefaultSms);
  ExpectRingExchange(ag, 0);
  EXPECT_EQ(ag.atomic_gemm, 0);
  EXPECT_TRUE(Mentions(ag, "nearest accepted method, ring_exchange"));
}

TEST(TeExportMap, SerialIsTheNearestNonOverlappedSetting) {
  const TeSettings rs = MapToTe(Config(Algorithm::kSerial), Op::kGemmRs, kTp, kDefaultSms);
  EXPECT_EQ(rs.method, TeMethod::kPipeline);
  EXPECT_EQ(rs.num_splits, 1);
  EXPECT_EQ(rs.atomic_gemm, 0);
  EXPECT_TRUE(Mentions(rs, "serial: no overlap; nearest TE setting"));

  const TeSettings ag = MapToTe(Config(Algorithm::kSerial), Op::kAgGemm, kTp, kDefaultSms);
  EXPECT_EQ(ag.method, TeMethod::kRingExchange);
  EXPECT_TRUE(Mentions(ag, "serial: no overlap"));
}

TEST(TeExportMap, LayerKeysAndMethodNames) {
  EXPECT_EQ(TeLayerKey("qkv"), "qkv_fprop");
  EXPECT_EQ(TeLayerKey("out_proj"), "proj_fprop");
  EXPECT_EQ(TeLayerKey("fc1"), "fc1_fprop");
  EXPECT_EQ(TeLayerKey("fc2"), "fc2_fprop");
  EXPECT_EQ(TeLayerKey("attention"), "");
  // A train block's ops: `<layer>.<pass>`.
  for (const char* pass : {"fprop", "dgrad", "wgrad"}) {
    const std::string p = pass;
    EXPECT_EQ(TeLayerKey("qkv." + p), "qkv_" + p);
    EXPECT_EQ(TeLayerKey("out_proj." + p), "proj_" + p);
    EXPECT_EQ(TeLayerKey("fc1." + p), "fc1_" + p);
    EXPECT_EQ(TeLayerKey("fc2." + p), "fc2_" + p);
  }
  EXPECT_EQ(TeLayerKey("attention.backward"), "");
  EXPECT_EQ(TeLayerKey("qkv.bgrad"), "");
  EXPECT_EQ(TeMethodName(TeMethod::kRingExchange), "ring_exchange");
  EXPECT_EQ(TeMethodName(TeMethod::kPipeline), "pipeline");
  EXPECT_EQ(TeMethodName(TeMethod::kBulk), "bulk");
  EXPECT_EQ(TeMethodName(TeMethod::kExternal), "external");
}

}  // namespace
}  // namespace braid
