// A TE ub_cfgs against a trace (braid/te_trace_check.h): the rows' keys
// (here from TE's NVTX ranges); each key's method is seen, seen without overlapping, not
// seen (another method), or not in the trace.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/gemm_keys.h"
#include "braid/te_trace_check.h"

namespace braid {
namespace {

GemmOverlapRow Row(const std::string& label, OverlapMethod m, GemmVerdict v, int kernels = 4) {
  GemmOverlapRow r;
  r.label = label;
  r.key = GemmKeyOfLabel(label).key;
  r.method = m;
  r.verdict = v;
  r.kernels = kernels;
  return r;
}

TEST(TeTraceCheck, EachFinding) {
  GemmOverlapReport report;
  report.rows = {
      Row("transformer_engine._Linear.forward.qkv.gemm", OverlapMethod::kRing, GemmVerdict::kOverlapped),
      Row("transformer_engine._Linear.forward.proj.gemm", OverlapMethod::kPipeline,
          GemmVerdict::kNotOverlappedAlthoughConfigured),
      Row("transformer_engine._LayerNormLinear.forward.fc1.gemm", OverlapMethod::kNone, GemmVerdict::kNoComm, 1),
      Row("transformer_engine._Linear.backward.fc2.wgrad_gemm", OverlapMethod::kNone, GemmVerdict::kNoComm, 1),
  };
  const std::vector<UbKeyExpectation> configs = {{"qkv_fprop", "ring_exchange", true, 0},
                                                 {"proj_fprop", "pipeline", true, 8},
                                                 {"fc1_fprop", "ring_exchange", false, 0},
                                                 {"fc2_wgrad", "external", false, 0},
                                                 {"fc2_fprop", "pipeline", false, 0}};
  const std::vector<TeKeyCheck> checks = CheckTeUbCfgs(report, configs);
  ASSERT_EQ(checks.size(), 5u);
  EXPECT_EQ(checks[0].finding, TeKeyFinding::kSeen);
  EXPECT_EQ(checks[0].gemms, 1);
  EXPECT_EQ(checks[1].finding, TeKeyFinding::kDidNotOverlap);
  EXPECT_EQ(checks[1].note, "num_splits 8 in the file, GEMM chunks seen: 4");
  EXPECT_EQ(checks[2].finding, TeKeyFinding::kOtherMethod);  // ring_exchange configured, no ring kernels
  EXPECT_EQ(checks[2].methods.at("none"), 1);
  EXPECT_EQ(checks[3].finding, TeKeyFinding::kSeen);  // external moves nothing of its own
  EXPECT_EQ(checks[4].finding, TeKeyFinding::kNotInTrace);
  EXPECT_EQ(TeKeyFindingName(TeKeyFinding::kOtherMethod), "other_method");
}

TEST(TeTraceCheck, ARingWhoseChunksAreNotTheTpSizeSaysSo) {
  // TE's ring_exchange runs one GEMM chunk per rank of the TP group.
  GemmOverlapReport report;
  report.rows = {Row("transformer_engine._Linear.forward.qkv.gemm", OverlapMethod::kRing, GemmVerdict::kOverlapped, 4)};
  const std::vector<UbKeyExpectation> configs = {{"qkv_fprop", "ring_exchange", false, 0}};
  EXPECT_EQ(CheckTeUbCfgs(report, configs, 4)[0].note, "");
  EXPECT_EQ(CheckTeUbCfgs(report, configs, 0)[0].note, "");  // TP size unknown
  EXPECT_EQ(CheckTeUbCfgs(report, configs, 8)[0].note, "ring_exchange at TP 8 runs 8 GEMM chunks, GEMM chunks seen: 4");
  EXPECT_EQ(CheckTeUbCfgs(report, configs, 8)[0].finding, TeKeyFinding::kSeen);
}

}  // namespace
}  // namespace braid
