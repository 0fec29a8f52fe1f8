// Presets that never mislead: entries are keyed by backend too, a file holds
// one entry per slot, saving merges with what another process saved, and
// the C API hands out every knob.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

#include "braid/presets.h"
#include "braid_presets.h"
#include "presets_test_util.h"

namespace braid {
namespace presets_slots_test {
namespace {

using testing_presets::FileWith;
using testing_presets::kValidEntry;
using testing_presets::MakePreset;

Preset WithBackend(Preset p, const std::string& backend, double time_ns) {
  p.backend = backend;
  p.time_ns = time_ns;
  return p;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(PresetSlots, ACpuMeasurementNeverAnswersAGpuLookup) {
  PresetFile f;
  f.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672), "cpu", 16e6));
  PresetTable only_cpu = PresetTable::FromFile(f);
  const Workload w = f.presets[0].key.workload;
  EXPECT_EQ(only_cpu.Lookup(w, "h100-sxm", "h100-sxm").match, PresetMatch::kNone);
  LookupResult r = only_cpu.Lookup(w, "h100-sxm", "h100-sxm", "cpu");
  EXPECT_EQ(r.match, PresetMatch::kExact);
  EXPECT_EQ(r.preset->time_ns, 16e6);

  f.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672), "sim", 1e5));
  PresetTable both = PresetTable::FromFile(f);
  r = both.Lookup(w, "h100-sxm", "h100-sxm");
  ASSERT_EQ(r.match, PresetMatch::kExact);
  EXPECT_EQ(r.preset->backend, "sim");
  EXPECT_EQ(both.Lookup(w, "h100-sxm", "h100-sxm", "cuda").match, PresetMatch::kNone);
  EXPECT_EQ(both.Lookup(w, "h100-sxm", "h100-sxm", "cpu").preset->backend, "cpu");
}

TEST(PresetSlots, ARealGpuMeasurementBeatsASimulatedOneAtEqualMatch) {
  PresetFile f;
  f.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672), "sim", 1e5));
  f.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672), "cuda", 2e5));
  f.presets.push_back(WithBackend(MakePreset(1024, 8192, 28672), "sim", 3e4));
  PresetTable t = PresetTable::FromFile(f);
  Workload w = f.presets[0].key.workload;
  EXPECT_EQ(t.Lookup(w, "h100-sxm", "h100-sxm").preset->backend, "cuda");
  // An exact sim entry beats a nearest cuda one.
  w.m = 1024;
  LookupResult r = t.Lookup(w, "h100-sxm", "h100-sxm");
  EXPECT_EQ(r.match, PresetMatch::kExact);
  EXPECT_EQ(r.preset->backend, "sim");
}

TEST(PresetSlots, MergeKeepsOneEntryPerBackend) {
  PresetFile existing;
  existing.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672), "sim", 1e5));
  PresetFile update;
  update.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672, "2026-12-01T00:00:00Z"), "cpu", 16e6));
  ASSERT_TRUE(MergeInto(existing, update).ok());
  ASSERT_EQ(existing.presets.size(), 2u);  // the cpu tune did not replace the sim preset
  EXPECT_EQ(existing.presets[0].backend, "sim");
  EXPECT_EQ(existing.presets[1].backend, "cpu");
  EXPECT_TRUE(SameSlot(existing.presets[0], existing.presets[0]));
  EXPECT_FALSE(SameSlot(existing.presets[0], existing.presets[1]));
}

TEST(PresetSlots, DuplicateKeysInAFileAreAnErrorNamingBothLines) {
  std::string second = kValidEntry;
  second = Replace(second, "time_ns = 1000.0", "time_ns = 2000.0");
  const std::string text = FileWith(std::string(kValidEntry) + "\n" + second);
  auto t = PresetTable::Parse(text, "p.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = t.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_EQ(m.rfind("p.toml:29:1: preset[1] has the same key", 0), 0u) << m;
  EXPECT_NE(m.find("as preset[0] at p.toml:4:1"), std::string::npos) << m;
  // The same key measured by another backend is a different slot.
  const std::string cpu = Replace(Replace(second, "backend = \"sim\"", "backend = \"cpu\""), "simulated = true\n", "");
  auto ok = PresetTable::Parse(FileWith(std::string(kValidEntry) + "\n" + cpu), "p.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), 2u);
}

TEST(PresetSlots, AnEntryWithoutBackendIsSimOnlyWhenMarkedSimulated) {
  const std::string no_backend = Replace(kValidEntry, "backend = \"sim\"\n", "");
  auto t = PresetTable::Parse(FileWith(no_backend), "p.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->presets()[0].backend, "sim");
  auto unknown = PresetTable::Parse(FileWith(Replace(no_backend, "simulated = true\n", "")), "p.toml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("p.toml:4:1: missing field 'preset[0].backend' (only entries marked "
                                            "simulated = true may leave it out)"),
            std::string::npos)
      << unknown.status().message();
}

class PresetSave : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) / ("braid_preset_save_" + std::to_string(::getpid()) + "_" +
                                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

// What another process saved after we read the file survives our save.
TEST_F(PresetSave, SavingMergesWithWhatIsOnDisk) {
  const std::string path = (dir_ / "p.toml").string();
  PresetFile ours;  // read before the other process saved: empty
  ours.presets.push_back(MakePreset(4096, 8192, 28672));
  PresetFile theirs;
  theirs.presets.push_back(MakePreset(1024, 1024, 1024));
  ASSERT_TRUE(SavePresetsAtomically(path, theirs).ok());
  ASSERT_TRUE(SavePresetsAtomically(path, ours).ok());
  auto t = PresetTable::Load(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ(t->presets()[0].key.workload.m, 1024);
  EXPECT_EQ(t->presets()[1].key.workload.m, 4096);
  EXPECT_FALSE(std::filesystem::exists(path + ".lock"));
}

TEST_F(PresetSave, ABrokenFileOnDiskIsNotOverwritten) {
  const std::string path = (dir_ / "p.toml").string();
  std::ofstream(path) << "not a preset file\n";
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  Status s = SavePresetsAtomically(path, f);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not a Braid preset file"), std::string::npos) << s.message();
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "not a preset file");
}

TEST_F(PresetSave, ASymlinkedPresetFileIsWrittenThroughTheLink) {
  const std::string real = (dir_ / "real.toml").string();
  std::filesystem::create_symlink("real.toml", dir_ / "link.toml");
  PresetFile f;
  f.presets.push_back(MakePreset(4096, 8192, 28672));
  ASSERT_TRUE(SavePresetsAtomically((dir_ / "link.toml").string(), f).ok());
  EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "link.toml"));
  auto t = PresetTable::Load(real);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->size(), 1u);
}

TEST_F(PresetSave, CApiFindGivesEveryKnobAndHonoursTheBackend) {
  const std::string path = (dir_ / "p.toml").string();
  PresetFile f;
  Preset chunked = MakePreset(4096, 8192, 28672);
  chunked.config.algorithm = Algorithm::kChunked;
  chunked.config.chunks = 3;
  chunked.config.splits = {2, 1, 1};
  chunked.config.comm_high_priority = false;
  f.presets.push_back(chunked);
  f.presets.push_back(WithBackend(MakePreset(4096, 8192, 28672), "cpu", 16e6));
  ASSERT_TRUE(SavePresetsAtomically(path, f).ok());
  braid_presets* p = nullptr;
  char err[256];
  ASSERT_EQ(braid_presets_load(path.c_str(), &p, err, sizeof err), 0) << err;

  braid_preset_entry e{};
  e.struct_size = sizeof e;
  ASSERT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", nullptr, "gemm_rs", "bf16", 4096, 8192, 28672, 8, &e), 0);
  EXPECT_EQ(e.match, BRAID_PRESET_EXACT);
  EXPECT_STREQ(e.algorithm, "chunked");
  EXPECT_EQ(e.chunks, 3);
  ASSERT_EQ(e.num_splits, 3);
  EXPECT_EQ(e.splits[0], 2);
  EXPECT_EQ(e.splits[1], 1);
  EXPECT_EQ(e.splits[2], 1);
  EXPECT_EQ(e.comm_high_priority, 0);
  EXPECT_STREQ(e.backend, "sim");
  EXPECT_EQ(e.struct_size, sizeof e);

  ASSERT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", "cpu", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &e), 0);
  EXPECT_STREQ(e.backend, "cpu");
  EXPECT_EQ(e.time_ns, 16e6);
  EXPECT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", "cuda", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &e), 1);
  EXPECT_EQ(e.match, BRAID_PRESET_NONE);
  EXPECT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", "tpu", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &e), -1);
  // fp32 finds nothing rather than the bf16 entry.
  EXPECT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", "", "gemm_rs", "fp32", 4096, 8192, 28672, 8, &e), 1);

  // A caller that does not set the size (or an impossible one) is refused.
  braid_preset_entry zero{};
  EXPECT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", nullptr, "gemm_rs", "bf16", 4096, 8192, 28672, 8, &zero), -1);
  // A caller compiled against a longer (newer) header gets this version's
  // fields and the rest of its struct untouched.
  struct Newer {
    braid_preset_entry v1;
    int added_later;
  } newer{};
  newer.v1.struct_size = sizeof newer;
  newer.added_later = 77;
  ASSERT_EQ(braid_preset_find(p, "h100-sxm", "h100-sxm", nullptr, "gemm_rs", "bf16", 4096, 8192, 28672, 8, &newer.v1),
            0);
  EXPECT_EQ(newer.v1.chunks, 3);
  EXPECT_EQ(newer.v1.struct_size, sizeof(braid_preset_entry));
  EXPECT_EQ(newer.added_later, 77);
  braid_presets_free(p);
}

}  // namespace
}  // namespace presets_slots_test
}  // namespace braid
