// Data-parallel presets ([[dp_preset]], version 5): written and read back
// equal, merged by slot and date, looked up by their exact key, and every
// bad field one line naming it.
#include <gtest/gtest.h>

#include <string>

#include "braid/presets.h"
#include "braid_presets.h"
#include "temp_dir.h"

namespace braid {
namespace dp_presets_test {
namespace {

DpPreset Entry(int dp, const std::string& date, DpSchedule schedule = DpSchedule::kBucketed) {
  DpPreset p;
  p.key = {"h100-sxm", "h100-sxm-4node-ib", "llama3-70b", 8192, 8, dp, ZeroStage::k1, DType::kBf16};
  p.schedule = schedule;
  p.bucket_params = 40000000;
  if (schedule == DpSchedule::kDecomposed) {
    p.decomposed_layers = 2;
    p.decomposition = Algorithm::kDirect;
    p.decomposition_chunks = 2;
  }
  p.prefetch = 2;
  p.comm_sms = 8;
  p.step_ns = 7.3e8;
  p.speedup_vs_megatron = 1.041;
  p.braid_version = "0.1.0";
  p.date = date;
  return p;
}

TEST(DpPresets, WrittenAsVersionFiveAndReadBackEqual) {
  PresetFile file;
  file.dp_presets = {Entry(4, "2026-11-29"), Entry(16, "2026-11-29", DpSchedule::kDecomposed)};
  const std::string text = WritePresets(file);
  EXPECT_NE(text.find("version = 5"), std::string::npos);
  Result<PresetFile> back = ParsePresetFile(text, "p.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->dp_presets.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const DpPreset &a = file.dp_presets[i], &b = back->dp_presets[i];
    EXPECT_TRUE(a.key == b.key);
    EXPECT_EQ(a.schedule, b.schedule);
    EXPECT_EQ(a.bucket_params, b.bucket_params);
    EXPECT_EQ(a.decomposed_layers, b.decomposed_layers);
    EXPECT_EQ(a.decomposition, b.decomposition);
    EXPECT_EQ(a.decomposition_chunks, b.decomposition_chunks);
    EXPECT_EQ(a.prefetch, b.prefetch);
    EXPECT_EQ(a.comm_sms, b.comm_sms);
    EXPECT_DOUBLE_EQ(a.step_ns, b.step_ns);
    EXPECT_DOUBLE_EQ(a.speedup_vs_megatron, b.speedup_vs_megatron);
    EXPECT_EQ(a.date, b.date);
  }
}

TEST(DpPresets, MergedBySlotAndDateAndLookedUpByTheirKey) {
  PresetFile existing, update;
  existing.dp_presets = {Entry(4, "2026-11-28")};
  update.dp_presets = {Entry(4, "2026-11-29"), Entry(16, "2026-11-29")};
  update.dp_presets[0].bucket_params = 80000000;
  ASSERT_TRUE(MergeInto(existing, update).ok());
  ASSERT_EQ(existing.dp_presets.size(), 2u);
  EXPECT_EQ(existing.dp_presets[0].bucket_params, 80000000);  // the later date wins its slot
  const PresetTable table = PresetTable::FromFile(existing);
  DpPresetKey key = Entry(16, "").key;
  ASSERT_NE(table.LookupDp(key), nullptr);
  EXPECT_EQ(table.LookupDp(key)->key.dp, 16);
  EXPECT_EQ(table.LookupDp(key, "cuda"), nullptr);  // only a sim one
  key.zero = ZeroStage::k3;
  EXPECT_EQ(table.LookupDp(key), nullptr);
  key = Entry(16, "").key;
  key.tokens = 4096;
  EXPECT_EQ(table.LookupDp(key), nullptr);
}

std::string Text(int version, const std::string& body) {
  return "format = \"braid-presets\"\nversion = " + std::to_string(version) +
         "\n[[dp_preset]]\ngpu = \"h100-sxm\"\ntopology = \"t\"\nmodel = \"m\"\ntokens = 8192\ntp = 8\ndp = 4\n"
         "dtype = \"bf16\"\nbucket_params = 40000000\nprefetch = 1\ncomm_sms = 0\nstep_ns = 1.0\n"
         "speedup_vs_megatron = 1.0\nbackend = \"sim\"\nbraid_version = \"0.1.0\"\ndate = \"2026-11-29\"\n" +
         body;
}

TEST(DpPresets, BadFieldsAreOneLineNamingTheField) {
  auto refused = [](const std::string& text, const std::string& what) {
    Result<PresetFile> f = ParsePresetFile(text, "p.toml");
    ASSERT_FALSE(f.ok()) << what;
    EXPECT_NE(f.status().message().find(what), std::string::npos) << f.status().message();
    EXPECT_EQ(f.status().message().find('\n'), std::string::npos);
  };
  const std::string good = "zero = \"1\"\nschedule = \"bucketed\"\n";
  ASSERT_TRUE(ParsePresetFile(Text(5, good), "p.toml").ok())
      << ParsePresetFile(Text(5, good), "p.toml").status().message();
  refused(Text(4, good), "dp_preset needs version = 5");
  refused(Text(5, "zero = \"4\"\nschedule = \"bucketed\"\n"), "dp_preset[0].zero `zero` must be 1, 2 or 3");
  refused(Text(5, "zero = \"1\"\nschedule = \"eager\"\n"), "dp_preset[0].schedule unknown DP schedule 'eager'");
  refused(Text(5, good + "decomposed_layers = 2\n"), "dp_preset[0].decomposed_layers applies to schedule");
  refused(Text(5,
               "zero = \"1\"\nschedule = \"decomposed\"\ndecomposed_layers = 1\ndecomposition = \"a2a\"\n"
               "decomposition_chunks = 1\n"),
          "dp_preset[0].decomposition must be serial, chunked, ring, bidir_ring or direct");
  refused(Text(5, good + "buckets = 3\n"), "buckets");
  std::string twice = Text(5, good) + Text(5, good).substr(Text(5, good).find("[[dp_preset]]"));
  refused(twice, "dp_preset[1] has the same key as dp_preset[0]");
  refused(
      Text(5, "zero = \"1\"\nschedule = \"bucketed\"\n").replace(Text(5, "").find("tokens = 8192"), 13, "tokens = 0"),
      "dp_preset[0].tokens");
}

// The C API answers the same key with the same setup, and a bad argument with -1.
TEST(DpPresets, TheCApiFindsTheSameSetup) {
  PresetFile file;
  file.dp_presets = {Entry(16, "2026-11-29", DpSchedule::kDecomposed)};
  const testing_files::TempDir dir;
  const std::string path = dir.Path("p.toml");
  ASSERT_TRUE(SavePresetsAtomically(path, file).ok());
  braid_presets* p = nullptr;
  char err[256];
  ASSERT_EQ(braid_presets_load(path.c_str(), &p, err, sizeof err), 0) << err;
  braid_dp_preset_entry e{};
  e.struct_size = sizeof e;
  ASSERT_EQ(
      braid_dp_preset_find(p, "h100-sxm", "h100-sxm-4node-ib", nullptr, "llama3-70b", 8192, 8, 16, "1", "bf16", &e), 0);
  EXPECT_STREQ(e.schedule, "decomposed");
  EXPECT_EQ(e.bucket_params, 40000000);
  EXPECT_EQ(e.decomposed_layers, 2);
  EXPECT_STREQ(e.decomposition, "direct");
  EXPECT_EQ(e.decomposition_chunks, 2);
  EXPECT_EQ(e.prefetch, 2);
  EXPECT_EQ(e.comm_sms, 8);
  EXPECT_DOUBLE_EQ(e.speedup_vs_megatron, 1.041);
  EXPECT_STREQ(e.backend, "sim");
  EXPECT_EQ(
      braid_dp_preset_find(p, "h100-sxm", "h100-sxm-4node-ib", nullptr, "llama3-70b", 8192, 8, 4, "1", "bf16", &e), 1);
  EXPECT_EQ(
      braid_dp_preset_find(p, "h100-sxm", "h100-sxm-4node-ib", nullptr, "llama3-70b", 8192, 8, 16, "7", "bf16", &e),
      -1);
  EXPECT_EQ(braid_dp_preset_find(p, "h100-sxm", "h100-sxm-4node-ib", "tpu", "llama3-70b", 8192, 8, 16, "1", "bf16", &e),
            -1);
  e.struct_size = 4;
  EXPECT_EQ(
      braid_dp_preset_find(p, "h100-sxm", "h100-sxm-4node-ib", nullptr, "llama3-70b", 8192, 8, 16, "1", "bf16", &e),
      -1);
  braid_presets_free(p);
}

}  // namespace
}  // namespace dp_presets_test
}  // namespace braid
