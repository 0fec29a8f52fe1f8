// Every bad input is a one-line Status::Invalid naming the file and the
// problem, never a crash.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>

#include "braid/trace_import.h"
#include "file_bytes.h"
#include "test_files.h"

namespace braid {
namespace {

using testing_files::Gzip;
using testing_files::MakeSqlite;
using testing_files::TempDir;

constexpr const char* kValidTrace = R"J({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "void k()", "ts": 1000.5, "dur": 10, "args": {"stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_x", "ts": 1003, "dur": 10, "args": {"stream": 8, "correlation": 2}}
]})J";

template <typename T>
void ExpectInvalid(const Result<T>& r, const std::string& path, std::string_view problem) {
  ASSERT_FALSE(r.ok()) << "expected an error about " << problem;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  const std::string& msg = r.status().message();
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;  // starts with the path
  EXPECT_NE(msg.find(problem), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

// A FIFO would block the open and /dev/zero never end the read: both are
// refused by what they are, before any read.
TEST(ImportBadInput, FifosAndDevicesAreRefusedBeforeAnyRead) {
  TempDir dir;
  const std::string fifo = dir.Path("pipe.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ExpectInvalid(ImportKineto({fifo}), fifo, "is a FIFO, not a trace file");
  ExpectInvalid(ImportKineto({"/dev/zero"}), "/dev/zero", "is a character device, not a trace file");
}

// A small .gz that inflates past the cap stops at the cap, not after.
TEST(ImportBadInput, GzipThatInflatesPastTheCapIsRefusedAtTheCap) {
  const std::string gz = Gzip(std::string(size_t(4) << 20, ' '));  // 4 MiB of spaces: a few KiB compressed
  importers::PaddedBytes out;
  const Status s = importers::Gunzip(gz, "big.json.gz", &out, size_t(1) << 20);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("big.json.gz: inflates to more than 1 MiB"), std::string::npos) << s.message();
  EXPECT_LE(out.capacity(), (size_t(2) << 20) + 4096) << "stopped at the cap";
  EXPECT_TRUE(importers::Gunzip(gz, "big.json.gz", &out, size_t(4) << 20).ok());
  EXPECT_EQ(out.size(), size_t(4) << 20);
}

TEST(ImportBadInput, KinetoMissingFile) {
  TempDir dir;
  const std::string path = dir.Path("missing.json");
  ExpectInvalid(ImportKineto({path}), path, "cannot open");
  ExpectInvalid(ImportKineto({dir.Path("")}), dir.Path(""), "is a directory");
  EXPECT_FALSE(ImportKineto({}).ok());
}

TEST(ImportBadInput, KinetoTruncatedGzip) {
  TempDir dir;
  const std::string gz = Gzip(kValidTrace);
  const std::string path = dir.Write("cut.json.gz", gz.substr(0, gz.size() / 2));
  ExpectInvalid(ImportKineto({path}), path, "truncated gzip");
  const std::string header_only = dir.Write("header.json.gz", gz.substr(0, 5));
  ExpectInvalid(ImportKineto({header_only}), header_only, "gzip");
}

TEST(ImportBadInput, KinetoCorruptGzip) {
  TempDir dir;
  std::string gz = Gzip(kValidTrace);
  for (size_t i = 12; i < gz.size() - 8; i += 3) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  const std::string path = dir.Write("bad.json.gz", gz);
  ExpectInvalid(ImportKineto({path}), path, "corrupt gzip");
  std::string crc = Gzip(kValidTrace);
  crc[crc.size() - 6] = static_cast<char>(crc[crc.size() - 6] ^ 1);  // the CRC-32 trailer
  const std::string crc_path = dir.Write("crc.json.gz", crc);
  ExpectInvalid(ImportKineto({crc_path}), crc_path, "corrupt gzip");
}

TEST(ImportBadInput, KinetoNotJson) {
  TempDir dir;
  const std::string text = dir.Write("text.json", "this is not JSON");
  ExpectInvalid(ImportKineto({text}), text, "JSON");
  const std::string cut = dir.Write("cut.json", std::string(kValidTrace).substr(0, 60));
  ExpectInvalid(ImportKineto({cut}), cut, "JSON");
  const std::string empty = dir.Write("empty.json", "");
  ExpectInvalid(ImportKineto({empty}), empty, "empty file");
}

TEST(ImportBadInput, KinetoJsonThatIsNotATrace) {
  TempDir dir;
  const std::string array = dir.Write("array.json", "[1, 2, 3]");
  ExpectInvalid(ImportKineto({array}), array, "not a Kineto trace");
  const std::string no_events = dir.Write("none.json", R"J({"schemaVersion": 1})J");
  ExpectInvalid(ImportKineto({no_events}), no_events, "no traceEvents");
  const std::string not_array = dir.Write("obj.json", R"J({"traceEvents": {"ph": "X"}})J");
  ExpectInvalid(ImportKineto({not_array}), not_array, "traceEvents is not an array");
  const std::string not_object = dir.Write("num.json", R"J({"traceEvents": [1]})J");
  ExpectInvalid(ImportKineto({not_object}), not_object, "traceEvents[0] is not an object");
  const std::string bad_ts = dir.Write("ts.json", R"J({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": "soon"}]})J");
  ExpectInvalid(ImportKineto({bad_ts}), bad_ts, "traceEvents[0].ts has the wrong type");
  const std::string bad_stream =
      dir.Write("stream.json", R"J({"traceEvents": [{"ph": "X", "ts": 1, "args": {"stream": "seven"}}]})J");
  ExpectInvalid(ImportKineto({bad_stream}), bad_stream, "args.stream is not an integer");
  const std::string huge_ts = dir.Write(
      "huge.json", R"J({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1e300, "args": {"stream": 7}}]})J");
  ExpectInvalid(ImportKineto({huge_ts}), huge_ts, "out of range");
  const std::string bad_rank = dir.Write("rank.json", R"J({"distributedInfo": {"rank": -3}, "traceEvents": []})J");
  ExpectInvalid(ImportKineto({bad_rank}), bad_rank, "distributedInfo.rank");
}

TEST(ImportBadInput, KinetoEmptyTrace) {
  TempDir dir;
  const std::string empty = dir.Write("empty.json", R"J({"traceEvents": []})J");
  ExpectInvalid(ImportKineto({empty}), empty, "empty trace");
  const std::string cpu_only = dir.Write(
      "cpu.json", R"J({"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name": "cudaFree", "ts": 1, "dur": 2}]})J");
  ExpectInvalid(ImportKineto({cpu_only}), cpu_only, "no GPU kernels");
}

TEST(ImportBadInput, KinetoSecondFileNamedInTheError) {
  TempDir dir;
  const std::string good = dir.Write("good.json", kValidTrace);
  const std::string bad = dir.Write("bad.json", "{");
  ExpectInvalid(ImportKineto({good, bad}), bad, "JSON");
}

TEST(ImportBadInput, NsysMissingFile) {
  TempDir dir;
  const std::string path = dir.Path("missing.sqlite");
  ExpectInvalid(ImportNsys(path), path, "cannot open");
  EXPECT_FALSE(std::filesystem::exists(path));  // read-only: nothing created
}

TEST(ImportBadInput, NsysFileThatIsNotSqlite) {
  TempDir dir;
  const std::string text = dir.Write("text.sqlite", std::string(4096, 'x'));
  ExpectInvalid(ImportNsys(text), text, "not a SQLite database");
  const std::string json = dir.Write("trace.json", kValidTrace);
  ExpectInvalid(ImportNsys(json), json, "not a SQLite database");
  const std::string empty = dir.Write("empty.sqlite", "");
  ExpectInvalid(ImportNsys(empty), empty, "empty file");
}

TEST(ImportBadInput, NsysSqliteThatIsNotAnExport) {
  TempDir dir;
  const std::string other = dir.Path("other.sqlite");
  MakeSqlite(other, "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO runs VALUES (1, 'x');");
  ExpectInvalid(ImportNsys(other), other, "no CUPTI_ACTIVITY_KIND_KERNEL table");
  const std::string no_strings = dir.Path("nostrings.sqlite");
  MakeSqlite(no_strings,
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
             " streamId INTEGER, demangledName INTEGER, shortName INTEGER);");
  ExpectInvalid(ImportNsys(no_strings), no_strings, "no StringIds table");
  const std::string no_columns = dir.Path("nocolumns.sqlite");
  MakeSqlite(no_columns, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (a INTEGER); CREATE TABLE StringIds (id, value);");
  ExpectInvalid(ImportNsys(no_columns), no_columns, "has no start column");
}

TEST(ImportBadInput, NsysEmptyTrace) {
  TempDir dir;
  const std::string empty = dir.Path("empty.sqlite");
  MakeSqlite(empty,
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
             " streamId INTEGER, demangledName INTEGER, shortName INTEGER);"
             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);");
  ExpectInvalid(ImportNsys(empty), empty, "empty trace");
}

TEST(ImportBadInput, NsysCorruptDatabase) {
  TempDir dir;
  const std::string path = dir.Path("corrupt.sqlite");
  MakeSqlite(path,
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
             " streamId INTEGER, demangledName INTEGER, shortName INTEGER);"
             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1, 1);");
  std::string bytes = testing_files::FileBytes(path);
  ASSERT_GT(bytes.size(), 1024u);
  for (size_t i = 1024; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);  // wipe the table pages
  const std::string corrupt = dir.Write("corrupt2.sqlite", bytes);
  const auto r = ImportNsys(corrupt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().rfind(corrupt + ": ", 0), 0u) << r.status().message();
}

}  // namespace
}  // namespace braid
