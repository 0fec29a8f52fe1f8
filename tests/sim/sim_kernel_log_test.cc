// gemm_kernels.csv (the kernels cuBLASLt launched, `calibrate --measure`)
// read, refused and set beside the sim's kernel choice.
#include "braid/sim_kernel_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/sim_measured.h"
#include "braid/sim_models.h"

namespace braid {
namespace {

using ::testing::HasSubstr;

GpuSpec H100() { return *LoadGpu("h100-sxm"); }

const char kHeader[] =
    "m,n,k,dtype,kernel,grid_ctas,cluster_ctas,max_active_clusters,block_threads,registers,shared_bytes\n";

TEST(SimKernelLog, TilesComeFromTheNamesNvidiasLibrariesGive) {
  struct Case {
    const char* name;
    int m, n;  // 0: no tile in the name
  };
  const Case cases[] = {
      {"nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT", 128, 256},
      {"nvjet_sm90_qqtst_64x64_128x13_2x1_v_bz_algo2_TNT", 64, 64},
      {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 256, 128},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cluster2x1x1_warpgroupsize2x1x1_execute_segment_k_"
       "off_kernel__5x_cublas",
       128, 256},
      {"ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_tn", 128, 256},
      {"splitKreduce_kernel", 0, 0},
      {"void at::native::vectorized_elementwise_kernel<4, float>", 0, 0},
      {"gemm_4x4_x_xx_1x", 0, 0},                     // sides under 8
      {"nvjet_sm90_tst_99999999999x256_64x4", 0, 0},  // a side past int
      {"tilesize", 0, 0},
      {"", 0, 0},
  };
  for (const Case& c : cases) {
    const auto t = sim::KernelTileOf(c.name);
    if (c.m == 0) {
      EXPECT_FALSE(t.has_value()) << c.name;
      continue;
    }
    ASSERT_TRUE(t.has_value()) << c.name;
    EXPECT_EQ(t->m, c.m) << c.name;
    EXPECT_EQ(t->n, c.n) << c.name;
  }
}

TEST(SimKernelLog, RowsReadBackAndMeetTheSimsChoice) {
  sim::MeasuredBoard b;
  const std::string text = std::string(kHeader) +
                           "512,7168,8192,bf16,nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT,128,2,64,384,168,"
                           "201728\n"
                           "512,7168,8192,fp8_e4m3,nvjet_sm90_qqtst_128x128_128x6_2x1_v_bz_coopA_TNT,128,2,64,384,"
                           "168,201728\n"
                           "64,1280,8192,bf16,nvjet_sm90_tst_64x64_64x8_1x1_h_bz_NNT,40,1,0,384,168,120000\n"
                           "64,1280,8192,bf16,splitKreduce_kernel,20,1,0,256,32,0\n";
  ASSERT_TRUE(sim::ReadMeasuredFile("gemm_kernels.csv", text, H100(), &b).ok());
  ASSERT_EQ(b.kernels.size(), 4u);
  EXPECT_TRUE(b.kernels[1].fp8);
  EXPECT_EQ(b.kernels[0].cluster_ctas, 2);
  EXPECT_EQ(b.kernels[0].max_active_clusters, 64);
  const auto rows = sim::CompareKernelChoice(H100(), b);
  ASSERT_EQ(rows.size(), 3u);  // a shape's split-K reduction is its second kernel, not a row
  EXPECT_EQ(rows[2].kernels, 2);
  EXPECT_EQ(rows[0].resident_ctas, 128);  // 64 clusters of 2
  EXPECT_EQ(rows[2].resident_ctas, 132);  // no cluster figure: an SM each
  ASSERT_TRUE(rows[0].tile.has_value());
  EXPECT_EQ(rows[0].tile->n, 256);
  // The sim's side is GemmCostOf's, whatever the log says.
  const sim::GemmCost c = sim::GemmCostOf(H100(), 512, 7168, 8192, DType::kBf16);
  EXPECT_EQ(rows[0].sim_tile.m, c.tile_m);
  EXPECT_EQ(rows[0].sim_grid_ctas, c.stream_k ? c.grid_sms : c.tiles);
  EXPECT_EQ(rows[0].grid_agrees(), rows[0].sim_grid_ctas == 128);
  const std::string table = sim::FormatKernelChoiceTable(rows);
  EXPECT_THAT(table, HasSubstr("512x7168x8192"));
  EXPECT_THAT(table, HasSubstr("(+1 more)"));
  EXPECT_THAT(table, HasSubstr("of 3 (3 named one)"));
}

TEST(SimKernelLog, ImpossibleRowsAreRefusedNamingFileLineAndColumn) {
  const struct {
    std::string row, message;
  } cases[] = {
      {"64,64,64,fp16,k,1,1,0,128,32,0", "gemm_kernels.csv:2: dtype: must be bf16 or fp8_e4m3, got 'fp16'"},
      {"64,64,64,bf16,,1,1,0,128,32,0", "gemm_kernels.csv:2: kernel: a kernel name of 1 to 512 bytes, got 0"},
      {"64,64,64,bf16," + std::string(513, 'k') + ",1,1,0,128,32,0", "kernel name of 1 to 512 bytes, got 513"},
      {"64,64,64,bf16,k\tx,1,1,0,128,32,0", "gemm_kernels.csv:2: kernel: a control character in the name"},
      {"64,64,64,bf16,k,0,1,0,128,32,0", "gemm_kernels.csv:2: grid_ctas:"},
      {"64,64,64,bf16,k,4294967296,1,0,128,32,0",
       "gemm_kernels.csv:2: grid_ctas: 4294967296 is not in [1, 2147483647]"},
      {"64,64,64,bf16,k,8,17,0,128,32,0", "gemm_kernels.csv:2: cluster_ctas: 17 is not in [1, 16]"},
      {"64,64,64,bf16,k,8,1,0,2048,32,0", "gemm_kernels.csv:2: block_threads: 2048 is not in [1, 1024]"},
      {"64,64,64,bf16,k,8,1,0,128,256,0", "gemm_kernels.csv:2: registers: 256 is not in [0, 255]"},
      {"64,64,64,bf16,k,8,1,0,128,32,300000", "gemm_kernels.csv:2: shared_bytes: 300000 is not in [0, 233472]"},
      {"64,64,64,bf16,k,8,1,-1,128,32,0", "gemm_kernels.csv:2: max_active_clusters:"},
      {"0,64,64,bf16,k,8,1,0,128,32,0", "gemm_kernels.csv:2: m:"},
      {"64,16777217,64,bf16,k,8,1,0,128,32,0", "gemm_kernels.csv:2: n: 16777217 is not in [1, 16777216]"},
  };
  for (const auto& c : cases) {
    sim::MeasuredBoard b;
    const Status s = sim::ReadMeasuredFile("gemm_kernels.csv", std::string(kHeader) + c.row + "\n", H100(), &b);
    EXPECT_FALSE(s.ok()) << c.row;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.row;
    EXPECT_EQ(s.message().find('\n'), std::string::npos);
    EXPECT_TRUE(b.kernels.empty());
  }
  sim::MeasuredBoard b;
  EXPECT_THAT(sim::ReadMeasuredFile("gemm_kernels.csv", "m,n,k,dtype\n64,64,64,bf16\n", H100(), &b).message(),
              HasSubstr("kernel"));
}

}  // namespace
}  // namespace braid
