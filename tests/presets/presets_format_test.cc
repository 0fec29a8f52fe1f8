#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "braid/presets.h"
#include "presets_test_util.h"
#include "temp_dir.h"

namespace braid {
namespace {

using testing_presets::MakePreset;

void ExpectSame(const Preset& a, const Preset& b) {
  EXPECT_TRUE(a.key == b.key);
  EXPECT_EQ(a.config.algorithm, b.config.algorithm);
  EXPECT_EQ(a.config.chunks, b.config.chunks);
  EXPECT_EQ(a.config.splits, b.config.splits);
  EXPECT_EQ(a.config.comm_lanes, b.config.comm_lanes);
  EXPECT_EQ(a.config.comm_sms, b.config.comm_sms);
  EXPECT_EQ(a.config.comm_engine, b.config.comm_engine);
  EXPECT_EQ(a.config.comm_high_priority, b.config.comm_high_priority);
  EXPECT_EQ(a.time_ns, b.time_ns);
  EXPECT_EQ(a.speedup_vs_serial, b.speedup_vs_serial);
  EXPECT_EQ(a.speedup_vs_te_default, b.speedup_vs_te_default);
  EXPECT_EQ(a.overlap_ratio, b.overlap_ratio);
  EXPECT_EQ(a.tail_ns, b.tail_ns);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.braid_version, b.braid_version);
  EXPECT_EQ(a.date, b.date);
}

TEST(PresetFormat, WriteThenParseRoundTrips) {
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  Preset b = MakePreset(8192, 8192, 8192);
  b.key.layer = "llama3-70b/fc1 \"quoted\" \\ tab\t";
  b.key.workload.op = Op::kAgGemm;
  b.key.workload.dtype = DType::kFp16;
  b.config.algorithm = Algorithm::kChunked;
  b.config.chunks = 3;
  b.config.splits = {1, 2, 1};
  b.config.comm_engine = CommEngine::kCopyEngine;
  b.config.comm_high_priority = false;
  b.backend = "cuda";
  b.time_ns = 1e-3 + 0.1;  // not exactly representable: shortest round-trip text
  b.overlap_ratio = 1;
  f.presets.push_back(b);
  const std::string text = WritePresets(f);
  auto back = ParsePresetFile(text, "rt.toml");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << text;
  ASSERT_EQ(back->presets.size(), 2u);
  ExpectSame(back->presets[0], f.presets[0]);
  ExpectSame(back->presets[1], f.presets[1]);
  EXPECT_EQ(WritePresets(*back), text);
}

// A sim preset's error band (docs/simulator.md, "Error bands") is written
// and read back; a preset without one writes none.
TEST(PresetFormat, ASimPresetsErrorBandRoundTrips) {
  PresetFile f;
  f.presets.push_back(MakePreset(1024, 1024, 1024));
  EXPECT_EQ(WritePresets(f).find("error_band"), std::string::npos);
  f.presets[0].error_band = 0.1234;
  const std::string text = WritePresets(f);
  EXPECT_NE(text.find("error_band = 0.1234\n"), std::string::npos) << text;
  auto back = ParsePresetFile(text, "band.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_DOUBLE_EQ(back->presets[0].error_band, 0.1234);
  EXPECT_EQ(WritePresets(*back), text);
}

TEST(PresetFormat, SimPresetsSaySimulated) {
  PresetFile f;
  f.presets.push_back(MakePreset(1024, 1024, 1024));
  EXPECT_NE(WritePresets(f).find("simulated = true"), std::string::npos);
}

TEST(PresetFormat, EmptyFileIsValid) {
  auto f = ParsePresetFile("format = \"braid-presets\"\nversion = 1\n", "e.toml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->presets.empty());
}

TEST(PresetFormat, MergeReplacesOlderAndKeepsOthers) {
  PresetFile existing;
  existing.presets.push_back(MakePreset(4096, 8192, 28672, "2026-01-01"));
  existing.presets.push_back(MakePreset(1024, 1024, 1024, "2026-01-01"));
  PresetFile update;
  Preset newer = MakePreset(4096, 8192, 28672, "2026-06-01T10:00:00Z");
  newer.config.algorithm = Algorithm::kFused;
  update.presets.push_back(newer);
  update.presets.push_back(MakePreset(2048, 2048, 2048, "2026-06-01"));
  ASSERT_TRUE(MergeInto(existing, update).ok());
  ASSERT_EQ(existing.presets.size(), 3u);
  EXPECT_EQ(existing.presets[0].config.algorithm, Algorithm::kFused);
  EXPECT_EQ(existing.presets[1].key.workload.m, 1024);
  EXPECT_EQ(existing.presets[2].key.workload.m, 2048);
}

TEST(PresetFormat, MergeKeepsNewerExistingAndUpdateWinsTies) {
  PresetFile existing;
  existing.presets.push_back(MakePreset(4096, 8192, 28672, "2026-09-01"));
  PresetFile older;
  Preset o = MakePreset(4096, 8192, 28672, "2026-01-01");
  o.config.algorithm = Algorithm::kSerial;
  older.presets.push_back(o);
  ASSERT_TRUE(MergeInto(existing, older).ok());
  EXPECT_EQ(existing.presets[0].config.algorithm, Algorithm::kRing);
  PresetFile same;
  Preset s = MakePreset(4096, 8192, 28672, "2026-09-01");
  s.config.algorithm = Algorithm::kChunked;
  same.presets.push_back(s);
  ASSERT_TRUE(MergeInto(existing, same).ok());
  EXPECT_EQ(existing.presets[0].config.algorithm, Algorithm::kChunked);
  ASSERT_EQ(existing.presets.size(), 1u);
}

TEST(PresetFormat, MergeTreatsLayerAsPartOfTheKey) {
  PresetFile existing;
  existing.presets.push_back(MakePreset(4096, 8192, 28672));
  PresetFile update;
  Preset p = MakePreset(4096, 8192, 28672);
  p.key.layer = "llama3-70b/fc2";
  update.presets.push_back(p);
  ASSERT_TRUE(MergeInto(existing, update).ok());
  EXPECT_EQ(existing.presets.size(), 2u);
}

TEST(PresetFormat, MergeRefusesAnotherVersion) {
  PresetFile existing, update;
  update.version = 6;
  Status s = MergeInto(existing, update);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("version 6"), std::string::npos);
}

TEST(PresetFormat, SaveAtomicallyWritesAndReplaces) {
  const testing_files::TempDir tmp;
  const std::string dir = tmp.dir().string();
  const std::string path = dir + "/p.toml";
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  ASSERT_TRUE(SavePresetsAtomically(path, f).ok());
  f.presets.push_back(MakePreset(1024, 1024, 1024));
  ASSERT_TRUE(SavePresetsAtomically(path, f).ok());
  EXPECT_EQ(testing_files::FileBytes(path), WritePresets(f));
  size_t files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);  // no temporary left behind
  auto t = PresetTable::Load(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->size(), 2u);
}

TEST(PresetFormat, SaveIntoMissingDirectoryFailsAndCreatesNothing) {
  const testing_files::TempDir tmp;
  const std::string dir = tmp.dir().string();
  const std::string path = dir + "/missing/p.toml";
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  Status s = SavePresetsAtomically(path, f);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.message();
  EXPECT_FALSE(std::filesystem::exists(dir + "/missing"));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(PresetFormat, FailedRenameLeavesTheOldFileIntact) {
  // The target is a non-empty directory: the temporary is written, the
  // rename fails, and both the target and the folder are left as they were.
  const testing_files::TempDir tmp;
  const std::string dir = tmp.dir().string();
  const std::string path = dir + "/p.toml";
  std::filesystem::create_directories(path + "/inside");
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  EXPECT_FALSE(SavePresetsAtomically(path, f).ok());
  EXPECT_TRUE(std::filesystem::is_directory(path + "/inside"));
  size_t files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST(PresetFormat, ShippedExampleLoadsAndRoundTrips) {
  auto t = PresetTable::Load(std::string(BRAID_SOURCE_DIR) + "/presets/examples/example.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ(t->presets()[1].config.splits, (std::vector<int>{2, 1, 1, 1}));
  PresetFile f;
  f.presets = t->presets();
  auto back = ParsePresetFile(WritePresets(f), "rt.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(WritePresets(*back), WritePresets(f));
}

}  // namespace
}  // namespace braid
