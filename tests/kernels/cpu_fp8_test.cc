// FP8 runs on the cpu backend: every GEMM input is cast to the FP8 format
// with a per-tensor scale (fp8_inputs.h), and every algorithm still
// reproduces the plain product of those cast inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "braid/cpu_backend.h"
#include "braid/fp8.h"
#include "cpu_test_util.h"
#include "fp8_inputs.h"
#include "run_inputs.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::VerifyOnce;

std::string FmtName(DType d) { return std::string(DTypeName(d)); }

TEST(CpuFp8, InputsLieOnTheFp8GridWithTheirAmaxAtTheFormatsMax) {
  for (DType dtype : {DType::kFp8E4m3, DType::kFp8E5m2}) {
    const Fp8Format format = Fp8FormatOf(dtype);
    const Plan fp32 = MustBuild(Op::kAgGemm, 32, 16, 24, 2, Algorithm::kRing);
    const cpu::RunInputs raw = cpu::MakeRunInputs(fp32, 7, false);
    cpu::RunInputs cast = raw;
    cpu::RoundInputsToFp8(dtype, cast);
    // An FP8 plan's inputs are those cast ones.
    const Plan plan = MustBuild(Op::kAgGemm, 32, 16, 24, 2, Algorithm::kRing, 1, 1, {}, dtype);
    const cpu::RunInputs made = cpu::MakeRunInputs(plan, 7, false);
    EXPECT_EQ(made.a[0].data, cast.a[0].data);
    EXPECT_EQ(made.b[0].data, cast.b[0].data);
    for (const HostMatrix* m : {&cast.a[0], &cast.b[0]}) {
      float amax = 0;
      for (float v : m->data) amax = std::fmax(amax, std::fabs(v));
      const float scale = Fp8ScaleForAmax(format, amax);
      int changed = 0;
      for (size_t i = 0; i < m->data.size(); ++i) {
        // On the grid: casting again gives the value back, bit for bit.
        const float v = m->data[i];
        ASSERT_EQ(DequantizeFp8(format, QuantizeFp8(format, v, scale), scale), v) << FmtName(dtype) << " " << i;
      }
      EXPECT_FLOAT_EQ(amax * scale, Fp8Max(format));
      const HostMatrix& before = m == &cast.a[0] ? raw.a[0] : raw.b[0];
      for (size_t i = 0; i < m->data.size(); ++i) changed += m->data[i] != before.data[i];
      EXPECT_GT(changed, int(m->data.size()) / 2) << "uniform random fp32 values are rarely on the FP8 grid";
    }
  }
}

TEST(CpuFp8, FixedScalesReplaceTheAmaxOnesAndSaturate) {
  const Plan plan = MustBuild(Op::kAgGemm, 32, 16, 24, 2, Algorithm::kRing, 1, 1, {}, DType::kFp8E4m3);
  const Fp8Format format = Fp8Format::kE4m3;
  // A: scale 64, on the grid of that scale; B: scale 4096, so every |b| above
  // 448 / 4096 saturates to it.
  cpu::Fp8Scaling scaling;
  scaling.a = 64.0f;
  scaling.b = 4096.0f;
  const cpu::RunInputs in = cpu::MakeRunInputs(plan, 7, false, scaling);
  ASSERT_EQ(in.a_scales.size(), 1u);
  EXPECT_EQ(in.a_scales[0], 64.0f) << "the all-gather moves A under the scale it was cast with";
  for (float v : in.a[0].data) ASSERT_EQ(DequantizeFp8(format, QuantizeFp8(format, v, 64.0f), 64.0f), v);
  const float b_max = Fp8Max(format) / 4096.0f;
  int saturated = 0;
  for (float v : in.b[0].data) {
    ASSERT_LE(std::fabs(v), b_max);
    saturated += std::fabs(v) == b_max;
  }
  EXPECT_GT(saturated, int(in.b[0].data.size()) / 2) << "uniform values in [-1, 1) mostly exceed 0.109";
  const cpu::RunInputs amax = cpu::MakeRunInputs(plan, 7, false);
  EXPECT_NE(amax.b[0].data, in.b[0].data);
  const std::string note = cpu::CpuDTypeNote(plan, cpu::RunWireFormats(plan, in), scaling);
  EXPECT_NE(note.find("A with the fixed scale 64, B with the fixed scale 4096"), std::string::npos) << note;
}

TEST(CpuFp8, EveryAlgorithmAndOpVerifiesOnCastInputs) {
  int verified = 0;
  for (DType dtype : {DType::kFp8E4m3, DType::kFp8E5m2}) {
    for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
      for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
        for (int p : {2, 4}) {
          const int chunks = algo == Algorithm::kSerial ? 1 : 2;
          const Plan plan = MustBuild(op, int64_t(p) * 16, 8 * p, 8 * p, p, algo, chunks, 2, {}, dtype);
          SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
          CpuBackend cpu;
          Result<RunOutput> out = cpu.Run(plan, VerifyOnce());
          ASSERT_TRUE(out.ok()) << out.status().message();
          EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
          EXPECT_LE(out->verify.max_rel_error, 1e-5);
          bool noted = false;
          for (const std::string& n : out->notes)
            noted = noted || n.find("is rounded to " + FmtName(dtype)) != std::string::npos;
          EXPECT_TRUE(noted);
          if (!::testing::Test::HasFailure()) ++verified;
        }
      }
    }
  }
  EXPECT_EQ(verified, 48);
}

}  // namespace
}  // namespace braid
