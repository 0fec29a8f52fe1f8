#include "braid/hta.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

TEST(HtaClassify, CommunicationNames) {
  EXPECT_EQ(ClassifyHtaKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            HtaKernelType::kComm);
  EXPECT_EQ(ClassifyHtaKernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"), HtaKernelType::kComm);
  EXPECT_EQ(ClassifyHtaKernel("void fused<ncclKernel_x>(int)"), HtaKernelType::kComm);  // ncclKernel anywhere
  EXPECT_EQ(ClassifyHtaKernel("hipMemcpyWithStream"), HtaKernelType::kComm);            // ^hip wins over memory
  EXPECT_EQ(ClassifyHtaKernel("hcclAllReduce"), HtaKernelType::kComm);
}

TEST(HtaClassify, MemoryNames) {
  EXPECT_EQ(ClassifyHtaKernel("Memcpy DtoD (Device -> Device)"), HtaKernelType::kMemory);
  EXPECT_EQ(ClassifyHtaKernel("Memset (Device)"), HtaKernelType::kMemory);
  EXPECT_EQ(ClassifyHtaKernel("dma_transfer"), HtaKernelType::kMemory);
}

TEST(HtaClassify, ExclusionListIsNeitherComputeNorComm) {
  EXPECT_EQ(ClassifyHtaKernel("Stream Wait Event"), HtaKernelType::kOther);
  EXPECT_EQ(ClassifyHtaKernel("Context Sync"), HtaKernelType::kOther);
  EXPECT_EQ(ClassifyHtaKernel("Event Sync"), HtaKernelType::kOther);
  EXPECT_EQ(ClassifyHtaKernel("void myMemcpyKernel(float*)"), HtaKernelType::kOther);  // Memcpy, not at the start
  EXPECT_EQ(ClassifyHtaKernel("void x_dma_kernel()"), HtaKernelType::kOther);
}

TEST(HtaClassify, ComputeNamesAndCaseSensitivity) {
  EXPECT_EQ(ClassifyHtaKernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(Params)"),
            HtaKernelType::kCompute);
  EXPECT_EQ(ClassifyHtaKernel("ampere_sgemm_128x64_nn"), HtaKernelType::kCompute);
  EXPECT_EQ(ClassifyHtaKernel("NCCL_like_but_upper"), HtaKernelType::kCompute);  // regexes are case sensitive
  EXPECT_EQ(ClassifyHtaKernel(""), HtaKernelType::kCompute);
}

TEST(HtaRounding, StartsRoundUpEndsRoundDown) {
  EXPECT_EQ(HtaRoundStartUs(10.2), 11);
  EXPECT_EQ(HtaRoundStartUs(10.0), 10);
  EXPECT_EQ(HtaRoundEndUs(15.9), 15);
  EXPECT_EQ(HtaRoundEndUs(15.0), 15);
  EXPECT_EQ(HtaRoundStartUs(-1.5), -1);
  EXPECT_EQ(HtaRoundEndUs(-1.5), -2);
  EXPECT_EQ(HtaRoundStartUs(1661203462598772.0), 1661203462598772);  // integer µs stay exact
}

TEST(HtaPercent, RoundsToTwoDecimals) {
  EXPECT_DOUBLE_EQ(HtaPercent(1, 3), 33.33);
  EXPECT_DOUBLE_EQ(HtaPercent(2, 3), 66.67);
  EXPECT_DOUBLE_EQ(HtaPercent(5, 0), 0);
  EXPECT_DOUBLE_EQ(HtaPercent(7, 7), 100);
}

TEST(HtaFiguresTest, MergesTouchingIntervalsAndMeasuresOverlap) {
  // compute [0,10) + [10,20) touch -> [0,20); comm [15,30); a memcpy [40,50).
  const std::vector<HtaGpuEvent> events = {
      {0, 10, HtaKernelType::kCompute},
      {10, 20, HtaKernelType::kCompute},
      {15, 30, HtaKernelType::kComm},
      {40, 50, HtaKernelType::kMemory},
  };
  const HtaFigures f = ComputeHtaFigures(events);
  EXPECT_EQ(f.compute, 20);
  EXPECT_EQ(f.comm, 15);
  EXPECT_EQ(f.overlap, 5);
  EXPECT_DOUBLE_EQ(f.overlap_pct, 33.33);
  // span 50, busy 30 + 10 -> idle 10
  EXPECT_DOUBLE_EQ(f.idle_pct, 20);
  EXPECT_DOUBLE_EQ(f.compute_pct, 40);
}

TEST(HtaFiguresTest, OtherKernelsCountInTheSpanOnly) {
  const std::vector<HtaGpuEvent> events = {
      {0, 10, HtaKernelType::kCompute},
      {90, 100, HtaKernelType::kOther},
  };
  const HtaFigures f = ComputeHtaFigures(events);
  EXPECT_EQ(f.compute, 10);
  EXPECT_EQ(f.comm, 0);
  EXPECT_DOUBLE_EQ(f.overlap_pct, 0);
  EXPECT_DOUBLE_EQ(f.idle_pct, 80);
  EXPECT_DOUBLE_EQ(f.compute_pct, 10);
}

TEST(HtaFiguresTest, EmptyAndInvertedEvents) {
  EXPECT_EQ(ComputeHtaFigures({}).comm, 0);
  // A float event shorter than 1 µs can round to end < start: it is empty.
  const HtaFigures f = ComputeHtaFigures({{5, 4, HtaKernelType::kComm}, {0, 10, HtaKernelType::kCompute}});
  EXPECT_EQ(f.comm, 0);
  EXPECT_EQ(f.compute, 10);
  EXPECT_DOUBLE_EQ(f.idle_pct, 0);
}

}  // namespace
}  // namespace braid
