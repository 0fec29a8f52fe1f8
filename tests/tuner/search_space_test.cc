#include <gtest/gtest.h>

#include <set>

#include "braid/comm_sms_effect.h"
#include "braid/search_space.h"

namespace braid {
namespace search_space_test {
namespace {

Workload Op(braid::Op op, int64_t m, int64_t n, int64_t k, int tp) { return {op, m, n, k, DType::kBf16, tp}; }

int Count(const std::vector<OverlapConfig>& space, Algorithm a) {
  int n = 0;
  for (const OverlapConfig& c : space) n += c.algorithm == a;
  return n;
}

TEST(SearchSpace, EveryCandidateIsValidAndDistinctAndSerialComesFirst) {
  const BackendKnobs sim = *KnobsOfBackend("sim");
  for (const Workload& w : {Op(Op::kAgGemm, 8192, 8192, 8192, 8), Op(Op::kGemmRs, 8192, 8192, 28672, 8),
                            Op(Op::kGemmAr, 4096, 8192, 8192, 4), Op(Op::kGemmRs, 4096, 4096, 4096, 2)}) {
    const std::vector<OverlapConfig> space = BuildSearchSpace(w, sim, 132);
    ASSERT_FALSE(space.empty());
    EXPECT_EQ(space[0].algorithm, Algorithm::kSerial);
    std::set<std::string> seen;
    for (const OverlapConfig& c : space) {
      EXPECT_TRUE(c.Validate(w).ok()) << c.Describe() << ": " << c.Validate(w).message();
      EXPECT_TRUE(seen.insert(c.Describe()).second) << "duplicate " << c.Describe();
    }
    EXPECT_EQ(Count(space, Algorithm::kSerial), 1);
    EXPECT_GT(Count(space, Algorithm::kChunked), 0);
    EXPECT_GT(Count(space, Algorithm::kRing), 0);
    EXPECT_GT(Count(space, Algorithm::kBidirRing), 0);
    if (w.op == Op::kGemmAr) {
      EXPECT_EQ(Count(space, Algorithm::kDirect), 0) << "direct refuses gemm_ar";
    } else {
      EXPECT_GT(Count(space, Algorithm::kDirect), 0);
    }
    EXPECT_EQ(Count(space, Algorithm::kIso), 0) << "iso is a layer config, not a GEMM's";
  }
}

TEST(SearchSpace, CoversEveryKnobOnGpuBackends) {
  const std::vector<OverlapConfig> ag =
      BuildSearchSpace(Op(Op::kAgGemm, 12288, 8192, 8192, 8), *KnobsOfBackend("sim"), 132);
  std::set<int> chunks, sms, lanes;
  bool ce = false, normal_priority = false, uneven = false, fused = false;
  for (const OverlapConfig& c : ag) {
    chunks.insert(c.chunks);
    sms.insert(c.comm_sms);
    lanes.insert(c.comm_lanes);
    ce |= c.comm_engine == CommEngine::kCopyEngine;
    normal_priority |= !c.comm_high_priority;
    uneven |= !c.splits.empty();
    fused |= c.algorithm == Algorithm::kFused;
  }
  EXPECT_EQ(chunks, (std::set<int>{1, 2, 3, 4, 6, 8}));
  EXPECT_TRUE(sms.count(0) && sms.count(16) && sms.count(20) && sms.count(32));
  EXPECT_EQ(lanes, (std::set<int>{1, 2}));
  EXPECT_TRUE(ce && normal_priority && uneven && fused);
}

TEST(SearchSpace, GpuOnlyKnobsAreNotVariedOnTheCpuBackend) {
  const std::vector<OverlapConfig> space =
      BuildSearchSpace(Op(Op::kGemmRs, 1024, 1024, 1024, 4), *KnobsOfBackend("cpu"));
  for (const OverlapConfig& c : space) {
    EXPECT_EQ(c.comm_sms, 0) << c.Describe();
    EXPECT_EQ(c.comm_engine, CommEngine::kSm) << c.Describe();
    EXPECT_TRUE(c.comm_high_priority) << c.Describe();
    EXPECT_NE(c.algorithm, Algorithm::kFused) << "cpu refuses fused";
  }
  EXPECT_GE(space.size(), 15u);
  EXPECT_LT(space.size(), 40u);
}

// A comm kernel moves data no faster than its SMs copy: comm_sms changes
// every comm kernel on SMs, serial's whole collectives included; only a
// copy-engine all-gather (no SM, no reduce) ignores it, unless a margin
// keeps those SMs from the GEMM.
TEST(CommSmsEffect, EveryAlgorithmButCopyEngineAllGathers) {
  OverlapConfig c;
  for (braid::Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    c.algorithm = Algorithm::kFused;
    EXPECT_TRUE(CommSmsTakeEffect(c, op)) << "the fused kernel splits its SMs by it";
    for (Algorithm a :
         {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kIso}) {
      c.algorithm = a;
      c.comm_engine = CommEngine::kSm;
      EXPECT_TRUE(CommSmsTakeEffect(c, op)) << c.Describe();
      c.comm_engine = CommEngine::kCopyEngine;
      // On the copy engine an all-gather only moves data; reduces still run on SMs.
      EXPECT_EQ(CommSmsTakeEffect(c, op), op != Op::kAgGemm) << c.Describe() << " " << OpName(op);
      c.sm_margin = a != Algorithm::kSerial;
      EXPECT_EQ(CommSmsTakeEffect(c, op), op != Op::kAgGemm || c.sm_margin) << c.Describe() << " " << OpName(op);
      c.sm_margin = false;
    }
    c.comm_engine = CommEngine::kSm;
  }
}

TEST(SearchSpace, SetsCommSmsOnlyWhereTheyTakeEffect) {
  for (const char* backend : {"sim", "cuda"}) {
    for (const Workload& w : {Op(Op::kAgGemm, 8192, 8192, 8192, 8), Op(Op::kGemmRs, 8192, 8192, 28672, 8),
                              Op(Op::kGemmAr, 4096, 8192, 8192, 4)}) {
      int ce_without_sms = 0, ce_with_sms = 0;
      for (const OverlapConfig& c : BuildSearchSpace(w, *KnobsOfBackend(backend), 132)) {
        if (c.comm_sms > 0) {
          EXPECT_TRUE(CommSmsTakeEffect(c, w.op)) << backend << " " << c.Describe();
        }
        if (c.comm_engine == CommEngine::kCopyEngine) ++(c.comm_sms > 0 ? ce_with_sms : ce_without_sms);
      }
      // Both sides of the rule are generated: copy-engine all-gathers with the
      // default only; copy-engine rings of reduces with SM budgets.
      EXPECT_GT(ce_without_sms, 0) << backend << " " << OpName(w.op);
      if (w.op == Op::kAgGemm) {
        EXPECT_EQ(ce_with_sms, 0) << backend;
      } else {
        EXPECT_GT(ce_with_sms, 0) << backend << " " << OpName(w.op);
      }
    }
  }
}

TEST(SearchSpace, ShapesThatDoNotDivideDropTheConfigsTheyBreak) {
  // M/P = 1000/8 = 125 is odd: bidir_ring cannot halve the blocks; the rest stays.
  const std::vector<OverlapConfig> space =
      BuildSearchSpace(Op(Op::kAgGemm, 1000, 4096, 4096, 8), *KnobsOfBackend("sim"));
  EXPECT_EQ(Count(space, Algorithm::kBidirRing), 0);
  EXPECT_GT(Count(space, Algorithm::kRing), 0);
  EXPECT_GT(Count(space, Algorithm::kFused), 0);
  for (const OverlapConfig& c : space) EXPECT_NE(c.chunks, 3) << "125 rows do not split in 3 evenly: " << c.Describe();
  // gemm_ar has no fused kernel; comm SMs stay below the GPU's SM count.
  const std::vector<OverlapConfig> ar =
      BuildSearchSpace(Op(Op::kGemmAr, 4096, 4096, 4096, 4), *KnobsOfBackend("sim"), 24);
  EXPECT_EQ(Count(ar, Algorithm::kFused), 0);
  for (const OverlapConfig& c : ar) EXPECT_LT(c.comm_sms, 24) << c.Describe();
}

TEST(SearchSpace, CudaTriesFusedWithinItsKernelsLimits) {
  auto cuda = KnobsOfBackend("cuda");
  ASSERT_TRUE(cuda.ok());
  EXPECT_TRUE(cuda->fused && cuda->copy_engine && cuda->comm_sms && cuda->priorities);
  // The kernel moves tiles with at most 32 comm CTAs and computes bf16/fp16 only.
  const std::vector<OverlapConfig> bf16 = BuildSearchSpace(Op(Op::kAgGemm, 8192, 8192, 8192, 8), *cuda, 132);
  EXPECT_GT(Count(bf16, Algorithm::kFused), 0);
  for (const OverlapConfig& c : bf16) {
    if (c.algorithm != Algorithm::kFused) continue;
    EXPECT_LE(c.comm_sms, 32) << c.Describe();
  }
  Workload fp32 = Op(Op::kGemmRs, 8192, 8192, 8192, 8);
  fp32.dtype = DType::kFp32;
  EXPECT_EQ(Count(BuildSearchSpace(fp32, *cuda, 132), Algorithm::kFused), 0);
}

TEST(SearchSpace, LoopbackFusedBudgetsFitOneRanksShareOfTheGpu) {
  const BackendKnobs cuda = *KnobsOfBackend("cuda");
  const Workload w = Op(Op::kAgGemm, 8192, 8192, 8192, 8);
  // 132 SMs / 8 ranks = 16 per rank: at most 15 for comm, one for the GEMM
  // (CheckFusedShape refuses more at run time, which would end the tune).
  const std::vector<OverlapConfig> shared = BuildSearchSpace(w, KnobsOnSharedGpu(cuda, 132, 8), 132);
  std::vector<int> budgets;
  for (const OverlapConfig& c : shared) {
    if (c.algorithm == Algorithm::kFused) budgets.push_back(c.comm_sms);
  }
  EXPECT_EQ(budgets, (std::vector<int>{4, 8, 12}));
  // Two ranks keep the kernel's own limit of 32.
  EXPECT_EQ(KnobsOnSharedGpu(cuda, 132, 2).fused_max_comm_sms, 32);
  // A share of one SM leaves nothing to move tiles with: no fused at all.
  EXPECT_FALSE(KnobsOnSharedGpu(cuda, 8, 8).fused);
  EXPECT_EQ(Count(BuildSearchSpace(w, KnobsOnSharedGpu(cuda, 8, 8), 8), Algorithm::kFused), 0);
  // Non-loopback knobs are untouched by one rank.
  EXPECT_EQ(KnobsOnSharedGpu(cuda, 132, 1).fused_max_comm_sms, 32);
}

TEST(SearchSpace, UnknownBackendIsInvalid) {
  EXPECT_EQ(KnobsOfBackend("tpu").status().message(), "unknown backend 'tpu' (known: sim, cpu, cuda)");
}

}  // namespace
}  // namespace search_space_test
}  // namespace braid
