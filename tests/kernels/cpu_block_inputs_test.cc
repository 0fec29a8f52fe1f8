// Verifying a layer, its GEMM ops' inputs are the tensors of one block: each
// op's A and B are what the block's reference forward and backward feed it
// (block_inputs.h), checked here against products computed in double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "block_model.h"
#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "cpu_test_util.h"
#include "run_inputs.h"

namespace braid {
namespace {

using testing::BlockModel;
using testing::OpIndex;

Plan MustPlan(const ModelSpec& m, Phase phase, int p, Algorithm algo, bool sp = true, int chunks = 1) {
  return testing::MustBlockPlan(m, phase, p, algo, sp, chunks);
}

HostMatrix Transposed(const HostMatrix& m) {
  HostMatrix t(m.cols, m.rows);
  for (int64_t i = 0; i < m.rows; ++i) {
    for (int64_t j = 0; j < m.cols; ++j) t.row(j)[i] = m.row(i)[j];
  }
  return t;
}

// x·y accumulated in double: independent of the sgemm under test.
HostMatrix Product(const HostMatrix& x, const HostMatrix& y) {
  HostMatrix c(x.rows, y.cols);
  for (int64_t i = 0; i < x.rows; ++i) {
    for (int64_t j = 0; j < y.cols; ++j) {
      double s = 0;
      for (int64_t k = 0; k < x.cols; ++k) s += double(x.row(i)[k]) * double(y.row(k)[j]);
      c.row(i)[j] = float(s);
    }
  }
  return c;
}

HostMatrix Plus(HostMatrix x, const HostMatrix& y) {
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] += y.data[i];
  return x;
}

// max|got − want| / max|want|; shapes must agree.
double RelError(const HostMatrix& got, const HostMatrix& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  if (got.rows != want.rows || got.cols != want.cols) return INFINITY;
  double err = 0, ref = 0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    err = std::max(err, std::fabs(double(got.data[i]) - double(want.data[i])));
    ref = std::max(ref, std::fabs(double(want.data[i])));
  }
  return err / ref;
}

bool Same(const HostMatrix& x, const HostMatrix& y) { return x.rows == y.rows && x.cols == y.cols && x.data == y.data; }

TEST(CpuBlockInputs, TrainOpsAreOneBlocksForwardAndBackward) {
  for (int p : {2, 3, 4}) {
    SCOPED_TRACE("P=" + std::to_string(p));
    const Plan plan = MustPlan(BlockModel(), Phase::kTrain, p, Algorithm::kSerial);
    const cpu::RunInputs in = cpu::MakeRunInputs(plan, 7, true);
    const auto& a = in.a;
    const auto& b = in.b;
    auto at = [&](std::string_view name) { return size_t(OpIndex(plan, name)); };
    // Within each linear: one X, W and dY.
    for (const char* l : {"qkv", "out_proj", "fc1", "fc2"}) {
      SCOPED_TRACE(l);
      const std::string s(l);
      const bool column = s == "qkv" || s == "fc1";
      const size_t f = at(s + ".fprop"), d = at(s + ".dgrad"), w = at(s + ".wgrad");
      EXPECT_TRUE(Same(b[d], Transposed(b[f])));  // dgrad B = Wᵀ
      if (column) {
        EXPECT_TRUE(Same(a[w], Transposed(a[f])));  // wgrad A = Xᵀ
        EXPECT_TRUE(Same(b[w], a[d]));              // wgrad B = dY
      } else {
        EXPECT_TRUE(Same(a[w], Transposed(a[d])));  // wgrad A = dYᵀ
        EXPECT_TRUE(Same(b[w], a[f]));              // wgrad B = X
      }
    }
    // Forward: fc1.X = x + out_proj's Y; fc2.X = gate + up of each rank's fc1 shard.
    const HostMatrix& x = a[at("qkv.fprop")];
    const HostMatrix y_out = Product(a[at("out_proj.fprop")], b[at("out_proj.fprop")]);
    EXPECT_LT(RelError(a[at("fc1.fprop")], Plus(y_out, x)), 1e-5);
    const HostMatrix y1 = Product(a[at("fc1.fprop")], b[at("fc1.fprop")]);
    const int64_t ffn = BlockModel().ffn, share = ffn / p;
    HostMatrix h(y1.rows, ffn);
    for (int64_t t = 0; t < y1.rows; ++t) {
      for (int r = 0; r < p; ++r) {
        for (int64_t j = 0; j < share; ++j) {
          h.row(t)[r * share + j] = y1.row(t)[2 * r * share + j] + y1.row(t)[2 * r * share + share + j];
        }
      }
    }
    EXPECT_LT(RelError(a[at("fc2.fprop")], h), 1e-5);
    // Backward: fc1.dY = fc2's dX in both halves; out_proj.dY = dOut + fc1's dX.
    const HostMatrix& d_out = a[at("fc2.dgrad")];
    const HostMatrix dh = Product(d_out, Transposed(b[at("fc2.fprop")]));
    HostMatrix dy1(dh.rows, 2 * ffn);
    for (int64_t t = 0; t < dh.rows; ++t) {
      for (int r = 0; r < p; ++r) {
        for (int64_t j = 0; j < share; ++j) {
          dy1.row(t)[2 * r * share + j] = dh.row(t)[r * share + j];
          dy1.row(t)[2 * r * share + share + j] = dh.row(t)[r * share + j];
        }
      }
    }
    EXPECT_LT(RelError(a[at("fc1.dgrad")], dy1), 1e-5);
    const HostMatrix dx1 = Product(a[at("fc1.dgrad")], Transposed(b[at("fc1.fprop")]));
    EXPECT_LT(RelError(a[at("out_proj.dgrad")], Plus(dx1, d_out)), 1e-5);
    EXPECT_EQ(in.forward_links, 2);
    EXPECT_EQ(in.backward_links, 2);
  }
}

TEST(CpuBlockInputs, WithoutBlockEveryOpKeepsItsOwnRandomInputs) {
  const Plan plan = MustPlan(BlockModel(), Phase::kTrain, 2, Algorithm::kSerial);
  const cpu::RunInputs random = cpu::MakeRunInputs(plan, 7, false);
  const cpu::RunInputs block = cpu::MakeRunInputs(plan, 7, true), again = cpu::MakeRunInputs(plan, 7, true);
  EXPECT_EQ(random.forward_links + random.backward_links, 0);
  const size_t fc1 = size_t(OpIndex(plan, "fc1.fprop")), qkv = size_t(OpIndex(plan, "qkv.fprop"));
  EXPECT_FALSE(Same(random.a[fc1], block.a[fc1]));
  EXPECT_TRUE(Same(random.a[qkv], block.a[qkv]));  // the block input x is the random A
  for (size_t i = 0; i < plan.ops.size(); ++i) {   // every process computes the same inputs
    EXPECT_TRUE(Same(block.a[i], again.a[i]) && Same(block.b[i], again.b[i])) << plan.ops[i].name;
  }
}

TEST(CpuBlockInputs, UngatedMlpFeedsFc1sOutputToFc2) {
  const Plan plan = MustPlan(BlockModel(false), Phase::kTrain, 3, Algorithm::kSerial);
  const cpu::RunInputs in = cpu::MakeRunInputs(plan, 3, true);
  const size_t fc1 = size_t(OpIndex(plan, "fc1.fprop")), fc2 = size_t(OpIndex(plan, "fc2.fprop"));
  EXPECT_LT(RelError(in.a[fc2], Product(in.a[fc1], in.b[fc1])), 1e-5);
  const size_t fc1d = size_t(OpIndex(plan, "fc1.dgrad")), fc2d = size_t(OpIndex(plan, "fc2.dgrad"));
  EXPECT_LT(RelError(in.a[fc1d], Product(in.a[fc2d], Transposed(in.b[fc2]))), 1e-5);
}

// Forward-only phases chain the forward; iso's sequence parts share weights.
TEST(CpuBlockInputs, ForwardPhasesChainTheForward) {
  struct Case {
    Phase phase;
    bool sp;
    Algorithm algo;
    int chunks, parts;
  };
  for (const Case& c :
       {Case{Phase::kPrefill, true, Algorithm::kRing, 2, 1}, Case{Phase::kPrefill, false, Algorithm::kSerial, 1, 1},
        Case{Phase::kDecode, false, Algorithm::kSerial, 1, 1}, Case{Phase::kPrefill, false, Algorithm::kIso, 2, 2}}) {
    const Plan plan = MustPlan(BlockModel(), c.phase, 2, c.algo, c.sp, c.chunks);
    SCOPED_TRACE(plan.config.Describe());
    const cpu::RunInputs in = cpu::MakeRunInputs(plan, 5, true);
    EXPECT_EQ(in.forward_links, 2 * c.parts);
    EXPECT_EQ(in.backward_links, 0);
    const std::string part = c.parts > 1 ? ".part1" : "";
    const size_t x = size_t(OpIndex(plan, "qkv" + part)), out = size_t(OpIndex(plan, "out_proj" + part));
    const size_t fc1 = size_t(OpIndex(plan, "fc1" + part));
    EXPECT_LT(RelError(in.a[fc1], Plus(Product(in.a[out], in.b[out]), in.a[x])), 1e-5);
    if (c.parts > 1) {
      EXPECT_TRUE(Same(in.b[fc1], in.b[size_t(OpIndex(plan, "fc1.part0"))]));
    }
  }
}

TEST(CpuBlockInputs, SingleOpPlansAreUnchanged) {
  const Plan plan = testing::MustBuild(Op::kGemmRs, 16, 8, 8, 2, Algorithm::kRing);
  const cpu::RunInputs random = cpu::MakeRunInputs(plan, 9, false), block = cpu::MakeRunInputs(plan, 9, true);
  EXPECT_TRUE(Same(random.a[0], block.a[0]) && Same(random.b[0], block.b[0]));
  EXPECT_EQ(block.forward_links + block.backward_links, 0);
}

}  // namespace
}  // namespace braid
