// Version 2 preset files: presets keyed by pass (fprop, dgrad, wgrad), the
// backward methods only where TE takes them, version 1 files still read,
// and all-fprop files still written as version 1 for older readers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "braid/presets.h"
#include "braid_presets.h"
#include "temp_dir.h"

namespace braid {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

Preset Entry(Pass pass, Op op, Algorithm algorithm, double time_ns) {
  Preset p;
  p.key.gpu = "h100-sxm";
  p.key.topology = "h100-sxm";
  p.key.layer = "llama3-70b/fc1";
  p.key.pass = pass;
  p.key.workload = {op, 8192, 8192, 28672, DType::kBf16, 8};
  p.config.algorithm = algorithm;
  p.time_ns = time_ns;
  p.braid_version = "0.1.0";
  p.date = "2026-11-26T00:00:00Z";
  return p;
}

std::string Text(int version, const std::string& body) {
  return "format = \"braid-presets\"\nversion = " + std::to_string(version) +
         "\n[[preset]]\ngpu = \"h100-sxm\"\ntopology = \"h100-sxm\"\ntp = 8\ndtype = \"bf16\"\nm = 8192\nn = "
         "8192\nk = 28672\nchunks = 1\nstreams = 1\ncomm_sms = 0\ntime_ns = 1.0\nspeedup_vs_serial = 1.0\n"
         "speedup_vs_te_default = 1.0\noverlap_ratio = 0.0\ntail_ns = 0.0\nbackend = \"sim\"\n"
         "braid_version = \"0.1.0\"\ndate = \"2026-11-26\"\n" +
         body;
}

TEST(PresetPass, EachPassHasItsOwnSlotAndLookupAsksForOne) {
  PresetFile f;
  f.presets = {Entry(Pass::kFprop, Op::kGemmRs, Algorithm::kRing, 100),
               Entry(Pass::kDgrad, Op::kGemmRs, Algorithm::kBulk, 200)};
  const std::string text = WritePresets(f);
  EXPECT_NE(text.find("version = 2"), std::string::npos);
  EXPECT_NE(text.find("pass = \"dgrad\""), std::string::npos);
  auto table = PresetTable::Parse(text, "p.toml");
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->size(), 2u);
  const Workload w{Op::kGemmRs, 8192, 8192, 28672, DType::kBf16, 8};
  const LookupResult fprop = table->Lookup(w, "h100-sxm", "h100-sxm");  // default: fprop
  ASSERT_NE(fprop.preset, nullptr);
  EXPECT_EQ(fprop.preset->config.algorithm, Algorithm::kRing);
  const LookupResult dgrad = table->Lookup(w, "h100-sxm", "h100-sxm", "", Pass::kDgrad);
  ASSERT_NE(dgrad.preset, nullptr);
  EXPECT_EQ(dgrad.match, PresetMatch::kExact);
  EXPECT_EQ(dgrad.preset->config.algorithm, Algorithm::kBulk);
  EXPECT_EQ(table->Lookup(w, "h100-sxm", "h100-sxm", "", Pass::kWgrad).match, PresetMatch::kNone);
}

TEST(PresetPass, AnAllFpropFileIsWrittenAsVersionOneAndVersionOneStillLoads) {
  PresetFile f;
  f.presets = {Entry(Pass::kFprop, Op::kAgGemm, Algorithm::kRing, 100)};
  const std::string text = WritePresets(f);
  EXPECT_NE(text.find("version = 1"), std::string::npos);
  EXPECT_EQ(text.find("pass ="), std::string::npos);
  auto back = ParsePresetFile(text, "p.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->version, 1);
  EXPECT_EQ(back->presets[0].key.pass, Pass::kFprop);
  // Merging a version-2 update into a version-1 file makes it version 2.
  PresetFile update;
  update.presets = {Entry(Pass::kWgrad, Op::kAgGemm, Algorithm::kBulk, 50)};
  ASSERT_TRUE(MergeInto(*back, update).ok());
  EXPECT_EQ(back->presets.size(), 2u);
  EXPECT_EQ(PresetFormatVersionFor(*back), 2);
  // A direct preset makes it version 3, which an older reader refuses by
  // its version rather than by an algorithm it does not know.
  PresetFile direct;
  direct.presets = {Entry(Pass::kFprop, Op::kGemmRs, Algorithm::kDirect, 40)};
  ASSERT_TRUE(MergeInto(*back, direct).ok());
  EXPECT_EQ(PresetFormatVersionFor(*back), 3);
  const std::string v3 = WritePresets(*back);
  EXPECT_NE(v3.find("version = 3"), std::string::npos);
  auto reread = ParsePresetFile(v3, "p.toml");
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  EXPECT_EQ(reread->presets.size(), 3u);
  // A Ulysses all-to-all makes it version 5: an older reader names the version.
  PresetFile ulysses;
  ulysses.presets = {Entry(Pass::kFprop, Op::kAgGemm, Algorithm::kA2aDirect, 50)};
  ASSERT_TRUE(MergeInto(*reread, ulysses).ok());
  EXPECT_EQ(PresetFormatVersionFor(*reread), 5);
  const std::string v5 = WritePresets(*reread);
  EXPECT_NE(v5.find("version = 5"), std::string::npos);
  auto back5 = ParsePresetFile(v5, "p.toml");
  ASSERT_TRUE(back5.ok()) << back5.status().message();
  EXPECT_EQ(std::count_if(back5->presets.begin(), back5->presets.end(),
                          [](const Preset& p) { return p.config.algorithm == Algorithm::kA2aDirect; }),
            1);
}

TEST(PresetPass, BadPassesAndMethodsTeRefusesAreOneLineNamingTheField) {
  auto refused = [](const std::string& text, const char* what) {
    auto f = ParsePresetFile(text, "p.toml");
    ASSERT_FALSE(f.ok()) << what;
    EXPECT_HAS(f.status(), what);
    EXPECT_EQ(f.status().message().find('\n'), std::string::npos);
  };
  refused(Text(2, "op = \"gemm_rs\"\nalgorithm = \"ring\"\npass = \"bprop\"\n"),
          "preset[0].pass unknown pass 'bprop' (known: fprop, dgrad, wgrad)");
  refused(Text(1, "op = \"gemm_rs\"\nalgorithm = \"ring\"\npass = \"dgrad\"\n"), "pass needs version = 2");
  refused(Text(1, "op = \"gemm_rs\"\nalgorithm = \"bulk\"\npass = \"dgrad\"\n"), "pass needs version = 2");
  refused(Text(2, "op = \"gemm_rs\"\nalgorithm = \"bulk\"\n"), "bulk is for the backward of a column-parallel layer");
  refused(Text(2, "op = \"ag_gemm\"\nalgorithm = \"bulk\"\npass = \"dgrad\"\n"), "this preset is dgrad ag_gemm");
  refused(Text(2, "op = \"ag_gemm\"\nalgorithm = \"external\"\npass = \"dgrad\"\n"),
          "external is for a row-parallel wgrad (pass wgrad)");
  refused(Text(6, "op = \"gemm_rs\"\nalgorithm = \"ring\"\n"), "version 6 is not supported");
  refused(Text(4, "op = \"gemm_rs\"\nalgorithm = \"a2a_direct\"\n"), "a2a_direct needs version = 5");
  refused(Text(3, "op = \"gemm_rs\"\nalgorithm = \"ring\"\nsm_margin = true\n"),
          "preset[0].sm_margin needs version = 4");
  refused(Text(3, "op = \"gemm_rs\"\nalgorithm = \"bulk\"\npass = \"dgrad\"\nwgrad_comm_sms = 8\n"),
          "preset[0].wgrad_comm_sms needs version = 4");
  refused(Text(4, "op = \"gemm_rs\"\nalgorithm = \"ring\"\nwgrad_comm_sms = 8\n"),
          "`wgrad_comm_sms` is the SM budget of a bulk pair's reduce-scatter: it applies to bulk only");
  refused(Text(2, "op = \"gemm_rs\"\nalgorithm = \"direct\"\n"), "direct needs version = 3");
  auto ok = ParsePresetFile(Text(2, "op = \"ag_gemm\"\nalgorithm = \"external\"\npass = \"wgrad\"\n"), "p.toml");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

TEST(PresetPass, TheSameShapeInTwoPassesIsNoDuplicate) {
  PresetFile f;
  f.presets = {Entry(Pass::kDgrad, Op::kGemmRs, Algorithm::kRing, 1),
               Entry(Pass::kDgrad, Op::kGemmRs, Algorithm::kRing, 2)};
  auto dup = ParsePresetFile(WritePresets(f), "p.toml");
  ASSERT_FALSE(dup.ok());
  EXPECT_HAS(dup.status(), "gemm_rs M=8192 N=8192 K=28672 bf16 P=8 dgrad on h100-sxm");
  f.presets[1].key.pass = Pass::kFprop;
  EXPECT_TRUE(ParsePresetFile(WritePresets(f), "p.toml").ok());
}

// The C API asks for a pass with braid_preset_find_pass; braid_preset_find
// keeps answering fprop for older callers.
TEST(PresetPass, TheCApiFindsEachPass) {
  const testing_files::TempDir tmp;
  const std::string path = (tmp.dir() / "p.toml").string();
  PresetFile f;
  f.presets = {Entry(Pass::kFprop, Op::kGemmRs, Algorithm::kRing, 100),
               Entry(Pass::kDgrad, Op::kGemmRs, Algorithm::kBulk, 200)};
  ASSERT_TRUE(SavePresetsAtomically(path, f).ok());
  braid_presets* p = nullptr;
  char err[256];
  ASSERT_EQ(braid_presets_load(path.c_str(), &p, err, sizeof err), 0) << err;
  braid_preset_entry e{};
  e.struct_size = sizeof e;
  ASSERT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", nullptr, "gemm_rs", "bf16", 8192, 8192, 28672, 8, &e), 0);
  EXPECT_STREQ(e.algorithm, "ring");
  ASSERT_EQ(
      braid_preset_find_pass(p, "h100-sxm", "h100-sxm", nullptr, "dgrad", "gemm_rs", "bf16", 8192, 8192, 28672, 8, &e),
      0);
  EXPECT_STREQ(e.algorithm, "bulk");
  EXPECT_EQ(braid_preset_find_pass(p, "h100-sxm", "h100-sxm", nullptr, "", "gemm_rs", "bf16", 8192, 8192, 28672, 8, &e),
            0);
  EXPECT_STREQ(e.algorithm, "ring");
  EXPECT_EQ(
      braid_preset_find_pass(p, "h100-sxm", "h100-sxm", nullptr, "wgrad", "gemm_rs", "bf16", 8192, 8192, 28672, 8, &e),
      1);
  EXPECT_EQ(
      braid_preset_find_pass(p, "h100-sxm", "h100-sxm", nullptr, "bprop", "gemm_rs", "bf16", 8192, 8192, 28672, 8, &e),
      -1);
  braid_presets_free(p);
}

}  // namespace
}  // namespace braid
