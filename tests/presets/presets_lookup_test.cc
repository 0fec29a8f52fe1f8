#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "braid/presets.h"
#include "braid_presets.h"
#include "presets_test_util.h"

namespace braid {
namespace {

using testing_presets::MakePreset;

PresetTable SmallTable() {
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));  // 0
  f.presets.push_back(MakePreset(1024, 8192, 28672));  // 1
  f.presets.push_back(MakePreset(16384, 8192, 8192));  // 2
  Preset fp32 = MakePreset(512, 512, 512);             // 3: another dtype only
  fp32.key.workload.dtype = DType::kFp32;
  fp32.key.workload.op = Op::kAgGemm;
  f.presets.push_back(fp32);
  return PresetTable::FromFile(std::move(f));
}

Workload W(Op op, int64_t m, int64_t n, int64_t k, DType d = DType::kBf16, int tp = 8) {
  Workload w;
  w.op = op;
  w.m = m;
  w.n = n;
  w.k = k;
  w.dtype = d;
  w.tp = tp;
  return w;
}

TEST(PresetLookup, ExactMatch) {
  PresetTable t = SmallTable();
  LookupResult r = t.Lookup(W(Op::kGemmRs, 1024, 8192, 28672), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kExact);
  ASSERT_NE(r.preset, nullptr);
  EXPECT_EQ(r.preset, &t.presets()[1]);
  EXPECT_EQ(r.distance, 0);
  EXPECT_EQ(PresetMatchName(r.match), "exact");
}

TEST(PresetLookup, NearestInLogSpace) {
  PresetTable t = SmallTable();
  // M=2048 sits between 1024 and 4096 on a log scale; 3000 is nearer 4096.
  LookupResult r = t.Lookup(W(Op::kGemmRs, 3000, 8192, 28672), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kNearest);
  ASSERT_NE(r.preset, nullptr);
  EXPECT_EQ(r.preset, &t.presets()[0]);
  EXPECT_NEAR(r.distance, std::log(4096.0 / 3000.0), 1e-12);
  r = t.Lookup(W(Op::kGemmRs, 1500, 8192, 28672), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.preset, &t.presets()[1]);
  r = t.Lookup(W(Op::kGemmRs, 16384, 8192, 9000), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.preset, &t.presets()[2]);
  EXPECT_EQ(PresetMatchName(r.match), "nearest");
}

TEST(PresetLookup, NoneWhenGpuTopologyTpOrOpDiffer) {
  PresetTable t = SmallTable();
  const Workload w = W(Op::kGemmRs, 4096, 8192, 28672);
  EXPECT_EQ(t.Lookup(w, "a100-sxm", "h100-sxm").match, PresetMatch::kNone);
  EXPECT_EQ(t.Lookup(w, "h100-sxm", "h100-sxm-2node-ib").match, PresetMatch::kNone);
  EXPECT_EQ(t.Lookup(W(Op::kGemmRs, 4096, 8192, 28672, DType::kBf16, 4), "h100-sxm", "h100-sxm").match,
            PresetMatch::kNone);
  LookupResult r = t.Lookup(W(Op::kGemmAr, 4096, 8192, 28672), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kNone);
  EXPECT_EQ(r.preset, nullptr);
  EXPECT_EQ(PresetMatchName(r.match), "none");
  EXPECT_EQ(t.Lookup(W(Op::kGemmRs, 0, 8192, 28672), "h100-sxm", "h100-sxm").match, PresetMatch::kNone);
}

// A bf16 measurement never answers an fp32 (or fp16) question.
TEST(PresetLookup, DtypeIsPartOfTheMatch) {
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  Preset fp16 = MakePreset(1024, 8192, 28672);
  fp16.key.workload.dtype = DType::kFp16;
  f.presets.push_back(fp16);
  PresetTable t = PresetTable::FromFile(std::move(f));
  // fp16 exists exactly in shape, but only bf16 answers a bf16 lookup.
  LookupResult r = t.Lookup(W(Op::kGemmRs, 1024, 8192, 28672), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kNearest);
  EXPECT_EQ(r.preset, &t.presets()[0]);
  r = t.Lookup(W(Op::kGemmRs, 1024, 8192, 28672, DType::kFp16), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kExact);
  EXPECT_EQ(r.preset, &t.presets()[1]);
  // fp32 has no entries: nothing, not the nearest of another dtype.
  r = t.Lookup(W(Op::kGemmRs, 1024, 8192, 28672, DType::kFp32), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kNone);
  EXPECT_EQ(r.preset, nullptr);
}

TEST(PresetLookup, Fp8AndBf16NeverAnswerEachOther) {
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 8192));  // bf16
  Preset e4m3 = MakePreset(4096, 8192, 8192);
  e4m3.key.workload.dtype = DType::kFp8E4m3;
  f.presets.push_back(e4m3);
  PresetTable t = PresetTable::FromFile(std::move(f));
  LookupResult r = t.Lookup(W(Op::kGemmRs, 4096, 8192, 8192, DType::kFp8E4m3), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kExact);
  EXPECT_EQ(r.preset, &t.presets()[1]);
  r = t.Lookup(W(Op::kGemmRs, 4096, 8192, 8192), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.preset, &t.presets()[0]);
  // The other FP8 format is another dtype: no entry, not the nearest FP8 one.
  r = t.Lookup(W(Op::kGemmRs, 4096, 8192, 8192, DType::kFp8E5m2), "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kNone);
  // An FP8 table answers no bf16 lookup.
  PresetFile only_fp8;
  only_fp8.presets.push_back(e4m3);
  PresetTable t8 = PresetTable::FromFile(std::move(only_fp8));
  EXPECT_EQ(t8.Lookup(W(Op::kGemmRs, 4096, 8192, 8192), "h100-sxm", "h100-sxm").match, PresetMatch::kNone);
}

TEST(PresetLookup, EmptyTableFindsNothing) {
  PresetTable t;
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.Lookup(W(Op::kGemmRs, 1, 1, 1), "x", "y").match, PresetMatch::kNone);
}

class PresetCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("braid_c_api_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".toml"))
                .string();
    PresetFile f;
    Preset p = MakePreset(4096, 8192, 28672);
    p.config.comm_engine = CommEngine::kCopyEngine;
    f.presets.push_back(p);
    ASSERT_TRUE(SavePresetsAtomically(path_, f).ok());
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(PresetCApi, LoadLookupFree) {
  braid_presets* p = nullptr;
  char err[256] = "junk";
  ASSERT_EQ(braid_presets_load(path_.c_str(), &p, err, sizeof err), 0) << err;
  EXPECT_STREQ(err, "");
  braid_preset_config c;
  EXPECT_EQ(braid_preset_lookup(p, "h100-sxm", "h100-sxm", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &c), 0);
  EXPECT_STREQ(c.algorithm, "ring");
  EXPECT_EQ(c.chunks, 2);
  EXPECT_EQ(c.streams, 2);
  EXPECT_EQ(c.comm_sms, 16);
  EXPECT_EQ(c.comm_engine, 1);
  EXPECT_EQ(c.comm_high_priority, 1);
  EXPECT_EQ(c.time_ns, 123456.5);
  EXPECT_EQ(c.match, BRAID_PRESET_EXACT);
  EXPECT_EQ(braid_preset_lookup(p, "h100-sxm", "h100-sxm", "gemm_rs", "bf16", 2048, 8192, 28672, 8, &c), 0);
  EXPECT_EQ(c.match, BRAID_PRESET_NEAREST);
  EXPECT_EQ(braid_preset_lookup(p, "a100-sxm", "h100-sxm", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &c), 1);
  EXPECT_EQ(c.match, BRAID_PRESET_NONE);
  EXPECT_STREQ(c.algorithm, "");
  EXPECT_EQ(braid_preset_lookup(p, "h100-sxm", "h100-sxm", "gemm_zz", "bf16", 4096, 8192, 28672, 8, &c), -1);
  EXPECT_EQ(braid_preset_lookup(p, nullptr, "h100-sxm", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &c), -1);
  EXPECT_EQ(braid_preset_lookup(nullptr, "h100-sxm", "h100-sxm", "gemm_rs", "bf16", 1, 1, 1, 8, &c), -1);
  EXPECT_EQ(braid_preset_lookup(p, "h100-sxm", "h100-sxm", "gemm_rs", "bf16", 1, 1, 1, 8, nullptr), -1);
  braid_presets_free(p);
  braid_presets_free(nullptr);
}

TEST_F(PresetCApi, LoadErrorsCopyTheMessage) {
  braid_presets* p = reinterpret_cast<braid_presets*>(this);
  char err[256];
  EXPECT_NE(braid_presets_load("/nonexistent/p.toml", &p, err, sizeof err), 0);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(err).find("/nonexistent/p.toml"), std::string::npos) << err;
  { std::ofstream(path_) << "format = \"nope\"\nversion = 1\n"; }
  EXPECT_NE(braid_presets_load(path_.c_str(), &p, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find(":1:10: format must be"), std::string::npos) << err;
  char tiny[8];
  EXPECT_NE(braid_presets_load(path_.c_str(), &p, tiny, sizeof tiny), 0);
  EXPECT_EQ(std::string(tiny).size(), 7u);  // truncated, NUL-terminated
  EXPECT_NE(braid_presets_load(path_.c_str(), &p, nullptr, 0), 0);
  EXPECT_NE(braid_presets_load(nullptr, &p, err, sizeof err), 0);
  EXPECT_NE(braid_presets_load(path_.c_str(), nullptr, err, sizeof err), 0);
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// The pruned search must agree with a plain scan over every entry.
TEST(PresetLookup, NearestAgreesWithBruteForce) {
  PresetFile f;
  uint64_t x = 12345;
  auto next = [&x](int64_t lo, int64_t hi) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return lo + int64_t((x >> 33) % uint64_t(hi - lo + 1));
  };
  for (int i = 0; i < 300; ++i) {
    Preset p = testing_presets::MakePreset(8 * next(1, 2048), 8 * next(1, 2048), 8 * next(1, 2048));
    if (i % 50 == 0 && i > 0) p.key.workload = f.presets[size_t(i - 7)].key.workload;  // duplicates
    f.presets.push_back(p);
  }
  const std::vector<Preset> all = f.presets;
  PresetTable t = PresetTable::FromFile(std::move(f));
  for (int q = 0; q < 500; ++q) {
    Workload w = all[0].key.workload;
    w.m = next(1, 20000);
    w.n = next(1, 20000);
    w.k = next(1, 20000);
    size_t best = 0;
    double best_d2 = 1e300;
    for (size_t i = 0; i < all.size(); ++i) {
      const Workload& e = all[i].key.workload;
      const double dm = std::log(double(e.m)) - std::log(double(w.m));
      const double dn = std::log(double(e.n)) - std::log(double(w.n));
      const double dk = std::log(double(e.k)) - std::log(double(w.k));
      const double d2 = dm * dm + dn * dn + dk * dk;
      if (d2 < best_d2) {
        best_d2 = d2;
        best = i;
      }
    }
    const LookupResult r = t.Lookup(w, "h100-sxm", "h100-sxm");
    ASSERT_NE(r.preset, nullptr);
    EXPECT_EQ(r.preset, &t.presets()[best]) << "query " << w.Describe();
    EXPECT_NEAR(r.distance, std::sqrt(best_d2), 1e-9);
  }
}

}  // namespace
}  // namespace braid
