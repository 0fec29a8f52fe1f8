// Which ub_cfgs key a traced GEMM is (braid/gemm_keys.h): TE's and
// Megatron-LM's NVTX ranges, and the shape of the PyTorch op that launched
// it against one rank's GEMMs of the block.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/gemm_keys.h"
#include "braid/gemm_overlap.h"

namespace braid {
namespace {

TEST(GemmKeys, TeNvtxRangesNameTheKeys) {
  EXPECT_EQ(GemmKeyOfLabel("transformer_engine._Linear.forward.qkv.gemm").key, "qkv_fprop");
  EXPECT_EQ(GemmKeyOfLabel("transformer_engine._LayerNormLinear.forward.fc1.gemm").key, "fc1_fprop");
  EXPECT_EQ(GemmKeyOfLabel("transformer_engine._Linear.backward.proj.dgrad_gemm").key, "proj_dgrad");
  EXPECT_EQ(GemmKeyOfLabel("transformer_engine._LayerNormMLP.backward.fc2.wgrad_gemm").key, "fc2_wgrad");
  EXPECT_EQ(GemmKeyOfLabel("transformer_engine._LayerNormMLP.backward.fc2.wgrad_gemm").source, "te_nvtx");
  for (const char* none : {"transformer_engine._Linear.forward.qkv.row_parallel_comm",  // not a GEMM
                           "transformer_engine._Linear.forward.attn.gemm",              // not a ub name
                           "transformer_engine._Linear.backward.qkv.gemm",              // backward has no plain gemm
                           "transformer_engine._Linear.forward", "fused_all_gather_matmul", ""}) {
    EXPECT_EQ(GemmKeyOfLabel(none).key, "") << none;
    EXPECT_EQ(GemmKeyOfLabel(none).source, "") << none;
  }
}

TEST(GemmKeys, MegatronNvtxRangesNameTheForwardKeys) {
  EXPECT_EQ(GemmKeyOfLabel("megatron.core.transformer.attention.forward.qkv").key, "qkv_fprop");
  EXPECT_EQ(GemmKeyOfLabel("megatron.core.transformer.attention.forward.linear_proj").key, "proj_fprop");
  EXPECT_EQ(GemmKeyOfLabel("megatron.core.transformer.mlp.forward.linear_fc1").key, "fc1_fprop");
  EXPECT_EQ(GemmKeyOfLabel("megatron.core.transformer.mlp.forward.linear_fc2").source, "megatron_nvtx");
  // Its other ranges around a layer's parts name no GEMM.
  for (const char* none : {"megatron.core.transformer.attention.forward.core_attention",
                           "megatron.core.transformer.mlp.forward.activation",
                           "megatron.core.transformer.transformer_layer.forward.self_attention"}) {
    EXPECT_EQ(GemmKeyOfLabel(none).key, "") << none;
  }
}

TEST(GemmKeys, MarkerNamesKeepCompactDims) {
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[8192, 4096], [4096, 1536]]"), "aten::mm [[8192,4096],[4096,1536]]");
  EXPECT_EQ(CpuOpMarkerName("aten::mm", ""), "aten::mm");
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[1, 2], \"x\"]"), "aten::mm");  // not integers
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[1, 2]"), "aten::mm");          // not closed
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[1,-2]]"), "aten::mm");
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[1,2]] x"), "aten::mm");
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[[[1]]]]"), "aten::mm");  // deeper than Input Dims go
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[[1234567890123456]]"), "aten::mm");
  EXPECT_EQ(CpuOpMarkerName("aten::mm", "[" + std::string(600, ' ') + "]"), "aten::mm []");
  std::string long_dims = "[";
  for (int i = 0; i < 200; ++i) long_dims += "[1],";
  long_dims += "[1]]";
  EXPECT_EQ(CpuOpMarkerName("aten::mm", long_dims), "aten::mm");  // over kMaxInputDimsText
}

TEST(GemmKeys, ShapesOfEachOp) {
  auto shape = [](const std::string& marker) { return GemmShapeOfCpuOp(marker); };
  auto s = shape("aten::mm [[8192,4096],[4096,1536]]");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->m, 8192);
  EXPECT_EQ(s->n, 1536);
  EXPECT_EQ(s->k, 4096);
  s = shape("aten::addmm [[1536],[8192,4096],[4096,1536],[],[]]");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 1536);
  s = shape("aten::linear [[4096,2,4096],[1536,4096],[]]");  // weight [n, k]; rows flattened
  ASSERT_TRUE(s);
  EXPECT_EQ(s->m, 8192);
  EXPECT_EQ(s->n, 1536);
  EXPECT_EQ(s->k, 4096);
  s = shape("symm_mem::fused_all_gather_matmul [[1024,4096],[[4096,1536]],[],[]]");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->m_is_shard);
  EXPECT_EQ(s->m, 1024);
  s = shape("symm_mem::fused_matmul_reduce_scatter [[8192,512],[512,4096],[],[],[]]");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->m_is_shard);
  for (const char* bad : {"aten::mm", "aten::mm [[8192,4096],[4095,1536]]", "aten::mm [[8192,4096]]",
                          "aten::bmm [[2,8,4],[2,4,8]]", "aten::mm [[0,4],[4,8]]",
                          "aten::linear [[99999999999999,99999999999999,2],[3,2]]", "aten::mm [[8,4],[[4,8]]]"}) {
    EXPECT_FALSE(shape(bad)) << bad;
  }
}

GemmOverlapRow RowWithOp(const std::string& op) {
  GemmOverlapRow r;
  r.op = op;
  return r;
}

TEST(GemmKeys, ShapesMapToOneKeyOrSayWhyNot) {
  GemmOverlapReport report;
  report.rows = {RowWithOp("aten::mm [[8192,4096],[4096,1536]]"),
                 RowWithOp("aten::mm [[4096,8192],[8192,1536]]"),  // wgrad, transposed: m and n swap
                 RowWithOp("symm_mem::fused_all_gather_matmul [[1024,4096],[[4096,1536]],[],[]]"),
                 RowWithOp("aten::mm [[8192,4096],[4096,999]]"),
                 RowWithOp("aten::mm [[8192,512],[512,4096]]"),
                 RowWithOp(""),
                 RowWithOp("aten::mm")};
  report.rows[1].key = "fc1_wgrad";  // a label's key is kept
  report.rows[1].key_source = "te_nvtx";
  const std::vector<KeyShape> shapes = {{"qkv_fprop", 8192, 1536, 4096},
                                        {"fc1_wgrad", 4096, 1536, 8192},
                                        {"proj_fprop", 8192, 4096, 512},
                                        {"fc2_fprop", 4096, 8192, 512}};
  AssignKeysByShape(&report, shapes, 8);
  EXPECT_EQ(report.rows[0].key, "qkv_fprop");
  EXPECT_EQ(report.rows[0].key_source, "shape");
  EXPECT_EQ(report.rows[1].key_source, "te_nvtx");
  EXPECT_EQ(report.rows[2].key, "qkv_fprop");  // 1024 rows of a shard x 8 ranks
  EXPECT_EQ(report.rows[3].key, "");
  EXPECT_EQ(report.rows[3].unmapped_why, "its shape 8192x999x4096 (m x n x k) is no TP GEMM of the block given");
  EXPECT_EQ(report.rows[4].unmapped_why, "its shape 8192x4096x512 fits several keys: proj_fprop, fc2_fprop");
  EXPECT_EQ(report.rows[5].unmapped_why, "no NVTX range names it and no PyTorch op with Input Dims launched it");
  EXPECT_EQ(report.rows[6].unmapped_why, "its op aten::mm recorded no shape");
}

TEST(GemmKeys, UnmappedWithoutABlockSaySo) {
  GemmOverlapReport report;
  report.rows = {RowWithOp("aten::mm [[8192,4096],[4096,1536]]"), RowWithOp("")};
  ExplainUnmapped(&report);
  EXPECT_EQ(report.rows[0].unmapped_why, "no NVTX range names it; its shape maps with --model, --seq and --tp");
  EXPECT_EQ(report.rows[1].unmapped_why, "no NVTX range names it and no PyTorch op with Input Dims launched it");
}

}  // namespace
}  // namespace braid
