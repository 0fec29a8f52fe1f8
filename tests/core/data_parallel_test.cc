// Data-parallel ops: each DP collective of a block is a GEMM op over the DP
// group whose plans every planner builds and the plan checker proves over
// TP 1..8 × DP 1..8; the gathered operand of a parameter gather is the
// weight; a DP group's links follow the grid's placement on the topology.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/data_parallel.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace data_parallel_test {
namespace {

LayerWorkload Train(const ModelSpec& m, int64_t seq, int tp) {
  Result<LayerWorkload> lw = MakeLayerWorkload(m, seq, 1, Phase::kTrain, tp, DType::kBf16);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return lw.ok() ? *lw : LayerWorkload{};
}

// Every size a multiple of 6·tp·dp, so TP and DP divide every shard and a
// rank's block splits in 2 and 3 chunks (small: the proof walks the rows).
ModelSpec DivisibleModel(int tp, int dp) {
  ModelSpec m;
  m.name = "divisible";
  m.hidden = m.heads = m.kv_heads = m.ffn = 6 * tp * dp;
  m.head_dim = 1;
  m.layers = 2;
  return m;
}

TEST(DataParallel, OpsAreTheBlocksWeightShardsAsGemmsOverTheDpGroup) {
  const LayerWorkload train = Train(testing_core::TinyModel(), 32, 2);
  Result<std::vector<DpOp>> ops = MakeDpOps(train, 4, ZeroStage::k3);
  ASSERT_TRUE(ops.ok()) << ops.status().message();
  std::vector<std::string> names;
  for (const DpOp& op : *ops) names.push_back(op.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc2.grad_rs", "fc1.grad_rs", "out_proj.grad_rs", "qkv.grad_rs",
                                             "qkv.param_ag", "out_proj.param_ag", "fc1.param_ag", "fc2.param_ag"}));
  // fc1 (column, gated: 2·ffn = 256 outputs of hidden 64 inputs): W_s = 64 × 128.
  const DpOp& fc1 = (*ops)[1];
  EXPECT_EQ(fc1.weight_rows, 64);
  EXPECT_EQ(fc1.weight_cols, 128);
  EXPECT_EQ(fc1.gemm.op, Op::kGemmRs);
  EXPECT_EQ(fc1.gemm.m, 64);
  EXPECT_EQ(fc1.gemm.n, 128);
  EXPECT_EQ(fc1.gemm.k, 32 * 4);  // every DP rank's 32 tokens
  EXPECT_EQ(fc1.gemm.tp, 4);
  EXPECT_EQ(fc1.bytes(), 64 * 128 * 2);
  // fc2 (row: ffn 128 inputs → hidden 64): W_s = 128/2 × 64.
  EXPECT_EQ((*ops)[0].weight_rows, 64);
  EXPECT_EQ((*ops)[0].weight_cols, 64);
  // The gather multiplies the weight as it lands: Yᵀ = W_sᵀ·Xᵀ, so A is W_sᵀ
  // (the gathered rows are W_s's columns) and each rank's tokens are B's columns.
  const DpOp& gather = (*ops)[6];
  EXPECT_EQ(gather.name, "fc1.param_ag");
  EXPECT_EQ(gather.gemm.op, Op::kAgGemm);
  EXPECT_EQ(gather.gemm.m, 128);
  EXPECT_EQ(gather.gemm.k, 64);
  EXPECT_EQ(gather.gemm.n, 32 * 4);
  // The gradient of a plain DDP is all-reduced, and nothing is gathered.
  Result<std::vector<DpOp>> ddp = MakeDpOps(train, 4, ZeroStage::kNone);
  ASSERT_TRUE(ddp.ok());
  ASSERT_EQ(ddp->size(), 4u);
  EXPECT_EQ((*ddp)[0].name, "fc2.grad_ar");
  EXPECT_EQ((*ddp)[0].gemm.op, Op::kGemmAr);
  EXPECT_TRUE(MakeDpOps(train, 1, ZeroStage::k3)->empty());
}

std::vector<OverlapConfig> DpConfigs(Op op) {
  std::vector<OverlapConfig> out;
  auto add = [&](Algorithm a, int chunks, int lanes) {
    OverlapConfig c;
    c.algorithm = a;
    c.chunks = chunks;
    c.comm_lanes = lanes;
    out.push_back(c);
  };
  add(Algorithm::kSerial, 1, 1);
  add(Algorithm::kChunked, 2, 1);
  add(Algorithm::kChunked, 3, 2);
  add(Algorithm::kRing, 1, 1);
  add(Algorithm::kRing, 2, 2);
  add(Algorithm::kBidirRing, 1, 1);
  if (op != Op::kGemmAr) add(Algorithm::kDirect, 2, 2);
  return out;
}

TEST(DataParallel, EveryPlanIsProvenForTp1To8ByDp1To8) {
  int proven = 0;
  for (int tp = 1; tp <= 8; ++tp) {
    for (int dp = 1; dp <= 8; ++dp) {
      const LayerWorkload train = Train(DivisibleModel(tp, dp), 6 * tp, tp);
      for (ZeroStage zero : {ZeroStage::kNone, ZeroStage::k3}) {
        Result<std::vector<DpOp>> ops = MakeDpOps(train, dp, zero);
        ASSERT_TRUE(ops.ok()) << "tp " << tp << " dp " << dp << ": " << ops.status().message();
        for (const DpOp& op : *ops) {
          for (const OverlapConfig& c : DpConfigs(op.gemm.op)) {
            SCOPED_TRACE(op.name + " " + op.gemm.Describe() + " " + c.Describe());
            Result<Plan> plan = BuildPlan(op.gemm, c);
            ASSERT_TRUE(plan.ok()) << plan.status().message();
            ASSERT_EQ(plan->tp(), dp);
            const Status structure = CheckPlanStructure(*plan);
            ASSERT_TRUE(structure.ok()) << structure.message();
            const Status semantics = CheckPlanSemantics(*plan);
            ASSERT_TRUE(semantics.ok()) << semantics.message();
            ++proven;
          }
        }
      }
    }
  }
  // Per TP size: dp 2..8 × (4 all-reduces × 6 configs + 8 ZeRO-3 ops × 7).
  EXPECT_EQ(proven, 8 * 7 * (4 * 6 + 8 * 7));
}

TEST(DataParallel, ShardsThatDoNotDivideAndBadStagesAreRefusedNamingTheField) {
  const LayerWorkload train = Train(testing_core::TinyModel(), 32, 2);
  Result<std::vector<DpOp>> rs = MakeDpOps(train, 3, ZeroStage::k1);
  ASSERT_FALSE(rs.ok());
  EXPECT_NE(rs.status().message().find("`dp` 3 does not divide fc2's weight rows 64"), std::string::npos)
      << rs.status().message();
  // An all-reduce scatters nothing: any dp goes.
  EXPECT_TRUE(MakeDpOps(train, 3, ZeroStage::kNone).ok());
  EXPECT_FALSE(MakeDpOps(train, 0, ZeroStage::kNone).ok());
  const LayerWorkload prefill = *MakeLayerWorkload(testing_core::TinyModel(), 32, 1, Phase::kPrefill, 2, DType::kBf16);
  EXPECT_NE(MakeDpOps(prefill, 2, ZeroStage::kNone).status().message().find("training"), std::string::npos);
  for (const char* bad : {"4", "-1", "", "zero", "1x"}) {
    Result<ZeroStage> z = ParseZeroStage(bad);
    ASSERT_FALSE(z.ok()) << bad;
    EXPECT_NE(z.status().message().find("`zero` must be 1, 2 or 3"), std::string::npos);
  }
  EXPECT_EQ(*ParseZeroStage("3"), ZeroStage::k3);
  EXPECT_EQ(*ParseZeroStage("none"), ZeroStage::kNone);
}

Topology Hgx(int nodes) {
  Topology t;
  t.name = "hgx";
  t.gpus_per_node = 8;
  t.nodes = nodes;
  t.intra.kind = LinkKind::kNvSwitch;
  t.intra.bandwidth_gbs = 450;
  t.inter.kind = LinkKind::kInfiniBand;
  t.inter.bandwidth_gbs = 50;
  t.inter.nics_per_node = 8;
  return t;
}

TEST(DataParallel, TheDpGroupCrossesTheRailsWhenTpFillsTheNode) {
  // TP 8 fills a node: each DP rank on its own node, each column's group on
  // its own rail (one NIC of 50 GB/s per GPU).
  Result<Topology> across = DpGroupTopology(Hgx(4), 8, 4);
  ASSERT_TRUE(across.ok()) << across.status().message();
  EXPECT_EQ(across->total_gpus(), 4);
  EXPECT_EQ(across->gpus_per_node, 1);
  EXPECT_EQ(across->domains(), 4);
  EXPECT_EQ(across->inter.nics_per_node, 1);
  EXPECT_DOUBLE_EQ(across->inter.bandwidth_gbs, 50);
  // TP 2 × DP 4 in one node: all on NVSwitch.
  Result<Topology> inside = DpGroupTopology(Hgx(1), 2, 4);
  ASSERT_TRUE(inside.ok());
  EXPECT_EQ(inside->domains(), 1);
  EXPECT_EQ(inside->total_gpus(), 4);
  // TP 4 × DP 4 on two nodes: two DP ranks a node, sharing two of its eight rails.
  Result<Topology> half = DpGroupTopology(Hgx(2), 4, 4);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->gpus_per_node, 2);
  EXPECT_EQ(half->domains(), 2);
  EXPECT_EQ(half->inter.nics_per_node, 2);
  // Four NICs for eight GPUs: a DP rank of a full-node TP group gets half a NIC.
  Topology four_nics = Hgx(2);
  four_nics.inter.nics_per_node = 4;
  Result<Topology> shared = DpGroupTopology(four_nics, 8, 2);
  ASSERT_TRUE(shared.ok());
  EXPECT_DOUBLE_EQ(shared->inter.bandwidth_gbs, 25);
}

TEST(DataParallel, AnNvl72RackKeepsTheDpGroupOnNvlink) {
  Topology rack = Hgx(18);
  rack.gpus_per_node = 4;
  rack.nvlink_domain_gpus = 72;
  rack.inter.nics_per_node = 4;
  Result<Topology> dp = DpGroupTopology(rack, 8, 9);
  ASSERT_TRUE(dp.ok()) << dp.status().message();
  EXPECT_EQ(dp->total_gpus(), 9);
  EXPECT_EQ(dp->domains(), 1);
  Result<Topology> too_many = DpGroupTopology(rack, 8, 16);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("`dp` 16 with `tp` 8 needs 128 GPUs"), std::string::npos)
      << too_many.status().message();
  EXPECT_FALSE(DpGroupTopology(Hgx(2), 3, 2).ok());  // TP 3 does not tile an 8-GPU node
}

}  // namespace
}  // namespace data_parallel_test
}  // namespace braid
