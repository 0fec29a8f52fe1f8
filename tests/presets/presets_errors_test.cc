// Every kind of bad preset file gives one line naming file:line and field.
#include <gtest/gtest.h>

#include <string>

#include "braid/presets.h"
#include "presets_test_util.h"

namespace braid {
namespace {

using testing_presets::FileWith;
using testing_presets::kValidEntry;

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

void ExpectError(const std::string& text, const std::string& want) {
  auto t = PresetTable::Parse(text, "p.toml");
  ASSERT_FALSE(t.ok()) << "accepted:\n" << text;
  const std::string& m = t.status().message();
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.rfind("p.toml:", 0), 0u) << m;
  EXPECT_NE(m.find(want), std::string::npos) << "message: " << m << "\nwanted: " << want;
}

TEST(PresetErrors, ValidEntryParses) {
  auto t = PresetTable::Parse(FileWith(kValidEntry), "p.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->size(), 1u);
}

TEST(PresetErrors, AnErrorBandOutsideZeroToOneOrOnAMeasuredPresetIsRefused) {
  ExpectError(FileWith(Replace(kValidEntry, "backend = \"sim\"\n", "error_band = 1.5\nbackend = \"sim\"\n")),
              "preset[0].error_band must be a number from 0 to 1");
  ExpectError(FileWith(Replace(Replace(kValidEntry, "backend = \"sim\"\nsimulated = true\n", "backend = \"cuda\"\n"),
                               "tail_ns = 10.0\n", "tail_ns = 10.0\nerror_band = 0.1\n")),
              "preset[0].error_band is a sim figure's: only where backend is \"sim\"");
}

TEST(PresetErrors, NotAPresetFile) {
  ExpectError("format = \"braid-topology\"\nversion = 1\n", "p.toml:1:10: format must be \"braid-presets\"");
  ExpectError("name = \"h100\"\n", "p.toml: not a Braid preset file (no format = \"braid-presets\")");
  ExpectError("version = 1\n", "p.toml: not a Braid preset file (no format = \"braid-presets\")");
  ExpectError("format = 3\nversion = 1\n", "format must be a string");
}

TEST(PresetErrors, UnknownVersion) {
  ExpectError("format = \"braid-presets\"\nversion = 6\n",
              "p.toml:2:11: version 6 is not supported (this reader knows versions 1 to 5; a newer Braid wrote it)");
  ExpectError("format = \"braid-presets\"\n", "missing field 'version'");
  ExpectError("format = \"braid-presets\"\nversion = \"1\"\n", "version must be an integer");
}

TEST(PresetErrors, NotATOMLFile) {
  ExpectError("format = \"braid-presets\nversion = 1\n", "p.toml:1:");
  ExpectError(std::string("\x00\xff\x01", 3), "p.toml: not a Braid preset file (p.toml:");
}

TEST(PresetErrors, PresetMustBeArrayOfTables) {
  ExpectError("format = \"braid-presets\"\nversion = 1\npreset = 3\n", "preset must be an array of tables");
  ExpectError("format = \"braid-presets\"\nversion = 1\npreset = [1, 2]\n", "preset must be an array of tables");
}

TEST(PresetErrors, MissingFieldNamesEntryLine) {
  for (const char* field :
       {"gpu", "topology", "tp", "op", "dtype", "m", "n", "k", "algorithm", "chunks", "streams", "comm_sms", "time_ns",
        "speedup_vs_serial", "speedup_vs_te_default", "overlap_ratio", "tail_ns", "braid_version", "date"}) {
    SCOPED_TRACE(field);
    std::string entry = kValidEntry;
    const std::string line = std::string("\n") + field + " = ";
    const size_t at = entry.find(line);
    ASSERT_NE(at, std::string::npos);
    entry.erase(at + 1, entry.find('\n', at + 1) - at);
    ExpectError(FileWith(entry), std::string("p.toml:4:1: missing field 'preset[0].") + field + "'");
  }
}

TEST(PresetErrors, SecondEntryIsNamedByIndex) {
  const std::string two = FileWith(std::string(kValidEntry) + "\n" + Replace(kValidEntry, "m = 4096", "m = 0"));
  ExpectError(two, "p.toml:35:5: preset[1].m must be an integer between 1");
}

TEST(PresetErrors, BadValues) {
  const std::string f = FileWith(kValidEntry);
  ExpectError(Replace(f, "op = \"gemm_rs\"", "op = \"gemm_xx\""), "p.toml:8:6: preset[0].op unknown op");
  ExpectError(Replace(f, "dtype = \"bf16\"", "dtype = \"int4\""), "preset[0].dtype unknown dtype");
  ExpectError(Replace(f, "algorithm = \"ring\"", "algorithm = \"magic\""), "preset[0].algorithm unknown algorithm");
  ExpectError(Replace(f, "comm_engine = \"sm\"", "comm_engine = \"dma\""), "preset[0].comm_engine unknown comm");
  ExpectError(Replace(f, "comm_priority = \"high\"", "comm_priority = \"low\""), "preset[0].comm_priority must be");
  ExpectError(Replace(f, "chunks = 2", "chunks = 0"), "p.toml:14:10: preset[0].chunks must be an integer");
  ExpectError(Replace(f, "streams = 2", "streams = 9"), "preset[0].streams must be an integer between 1 and 8");
  ExpectError(Replace(f, "comm_sms = 16", "comm_sms = -1"), "preset[0].comm_sms must be an integer");
  ExpectError(Replace(f, "tp = 8", "tp = 2.5"), "preset[0].tp must be an integer");
  ExpectError(Replace(f, "k = 28672", "k = 28673"), "p.toml:4:1: preset[0]: ");  // K not divisible by P
  ExpectError(Replace(f, "time_ns = 1000.0", "time_ns = 0"), "preset[0].time_ns must be a positive number");
  ExpectError(Replace(f, "overlap_ratio = 0.8", "overlap_ratio = 1.5"), "preset[0].overlap_ratio must be a number");
  ExpectError(Replace(f, "tail_ns = 10.0", "tail_ns = \"10\""), "preset[0].tail_ns must be a number");
  ExpectError(Replace(f, "speedup_vs_serial = 1.2", "speedup_vs_serial = -1.0"), "preset[0].speedup_vs_serial");
  ExpectError(Replace(f, "backend = \"sim\"", "backend = \"tpu\""), "preset[0].backend must be \"sim\"");
  ExpectError(Replace(f, "simulated = true", "simulated = false"), "preset[0].simulated must be true exactly");
  ExpectError(Replace(f, "simulated = true", "simulated = 1"), "preset[0].simulated must be true or false");
  ExpectError(Replace(f, "date = \"2026-11-21T12:00:00Z\"", "date = \"yesterday\""), "preset[0].date must be");
  ExpectError(Replace(f, "gpu = \"h100-sxm\"", "gpu = 100"), "p.toml:5:7: preset[0].gpu must be a string");
  ExpectError(Replace(f, "chunks = 2", "chunks = 2\nsplits = 3"), "preset[0].splits must be an array");
  ExpectError(Replace(f, "chunks = 2", "chunks = 2\nsplits = [1, 0]"), "preset[0].splits must be an array");
  ExpectError(Replace(f, "chunks = 2", "chunks = 2\nsplits = [1]"), "preset[0].splits must have one weight");
  ExpectError(Replace(f, "m = 4096", "m = 4096\nmm = 1"), "unknown field 'preset[0].mm'");
}

TEST(PresetErrors, AConfigThatRunRefusesIsRefusedOnLoad) {
  // The rules of `run` (OverlapConfig::Validate): a loader never answers a
  // config that a run of its op would refuse.
  const std::string f = Replace(FileWith(kValidEntry), "version = 1", "version = 3");  // direct needs 3
  const std::string ar = Replace(f, "op = \"gemm_rs\"", "op = \"gemm_ar\"");
  ExpectError(Replace(ar, "algorithm = \"ring\"\nchunks = 2", "algorithm = \"direct\"\nchunks = 1"),
              "preset[0]: direct does not apply to gemm_ar");
  ExpectError(Replace(ar, "algorithm = \"ring\"\nchunks = 2", "algorithm = \"fused\"\nchunks = 1"),
              "preset[0]: fused does not apply to gemm_ar");
  ExpectError(Replace(f, "algorithm = \"ring\"", "algorithm = \"serial\""),
              "preset[0]: serial runs the collective whole: it takes no `chunks`");
  // A ring of the same op loads.
  EXPECT_TRUE(PresetTable::Parse(ar, "p.toml").ok());
}

TEST(PresetErrors, MissingFileIsNotFound) {
  auto t = PresetTable::Load("/nonexistent/braid/presets.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_NE(t.status().message().find("/nonexistent/braid/presets.toml"), std::string::npos);
}

}  // namespace
}  // namespace braid
