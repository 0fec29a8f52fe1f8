// Every bad input is a one-line Status::Invalid naming the file and the
// problem, never a crash.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>

#include "braid/trace_import.h"
#include "file_bytes.h"
#include "nsys_rows.h"
#include "rank_assembly.h"
#include "sqlite_reader.h"
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
  // SQLite would block opening a FIFO too.
  ExpectInvalid(ImportNsys(fifo), fifo, "is a FIFO, not an Nsight Systems export");
  ExpectInvalid(ImportNsys("/dev/zero"), "/dev/zero", "is a character device, not an Nsight Systems export");
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

// A gzip far more compressed than any trace (a run of spaces, or zeros) is
// refused once it passes kMaxInflateRatio times its size (at least
// kMinInflateAllowance), long before the 8 GiB cap: whole, and inflated a
// window at a time as the Kineto reader does (which then does not inflate
// it whole again).
TEST(ImportBadInput, GzipFarMoreCompressedThanATraceIsRefusedEarly) {
  EXPECT_EQ(importers::InflateLimit(1000), kMinInflateAllowance);
  EXPECT_EQ(importers::InflateLimit(size_t(2) << 20), size_t(128) << 20);
  EXPECT_EQ(importers::InflateLimit(SIZE_MAX), SIZE_MAX);
  const std::string gz = Gzip("{\"traceEvents\": [" + std::string(size_t(96) << 20, ' ') + "]}");
  ASSERT_LT(gz.size(), size_t(1) << 20);
  importers::PaddedBytes out;
  const Status s = importers::Gunzip(gz, "bomb.json.gz", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bomb.json.gz: inflates to more than 64 MiB, over 64 times its"), std::string::npos)
      << s.message();
  EXPECT_LE(out.capacity(), (size_t(128) << 20) + 4096) << "stopped at the limit";
  TempDir dir;
  const std::string path = dir.Write("bomb.json.gz", gz);
  ExpectInvalid(ImportKineto({path}), path, "over 64 times its");
}

TEST(ImportBadInput, KinetoMissingFile) {
  TempDir dir;
  const std::string path = dir.Path("missing.json");
  ExpectInvalid(ImportKineto({path}), path, "cannot open");
  ExpectInvalid(ImportKineto({dir.Path("")}), dir.Path(""), "holds no Kineto traces");
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
  // A rank number no job has: the figures' per-rank tables follow the
  // highest rank (2^24 took 6.5 GB), so it is refused before any is built.
  const std::string huge_rank = dir.Write(
      "huge_rank.json", R"J({"distributedInfo": {"rank": 16777215, "world_size": 16777216}, "traceEvents": []})J");
  ExpectInvalid(ImportKineto({huge_rank}), huge_rank, "distributedInfo.rank 16777215 is above the 131072 ranks");
  const std::string huge_world =
      dir.Write("huge_world.json", R"J({"distributedInfo": {"rank": 0, "world_size": 131073}, "traceEvents": []})J");
  ExpectInvalid(ImportKineto({huge_world}), huge_world, "distributedInfo.world_size 131073 is above");
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

// A name far longer than any kernel's, used by many rows, is kept once
// per event only up to kMaxEventNameBytes (a 20 MB name on 400 rows held
// 8 GB).
TEST(ImportBadInput, NsysHugeNamesAreCutWhereTheyAreKept) {
  TempDir dir;
  const std::string path = dir.Path("long_name.sqlite");
  std::string rows;
  for (int i = 0; i < 50; ++i) {
    rows += (rows.empty() ? "" : ", ") + std::string("(") + std::to_string(100 * i + 1) + ", " +
            std::to_string(100 * i + 50) + ", 0, 7, 1, 1)";
  }
  MakeSqlite(path,
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
             " streamId INTEGER, demangledName INTEGER, shortName INTEGER);"
             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
             "INSERT INTO StringIds VALUES (1, 'gemm_' || hex(zeroblob(1000000)));"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " +
                 rows + ";");
  const auto r = ImportNsys(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranks[0].events.size(), 50u);
  for (const Event& e : r->ranks[0].events) {
    EXPECT_LE(e.name.size(), kMaxEventNameBytes);
    EXPECT_EQ(e.name.rfind("gemm_0000", 0), 0u);
    EXPECT_NE(e.name.find("bytes cut]"), std::string::npos);
  }
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

// The tables an export has, read as views: a recursive view would grow
// without bound, so a view (or virtual table) in a table's place is refused.
TEST(ImportBadInput, NsysViewsInPlaceOfTablesAreRefused) {
  TempDir dir;
  const std::string path = dir.Path("view.sqlite");
  MakeSqlite(path,
             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
             "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)"
             " SELECT x AS start, x + 1 AS end, 0 AS deviceId, 7 AS streamId, 1 AS demangledName,"
             " 1 AS shortName FROM n;");
  ExpectInvalid(ImportNsys(path), path, "CUPTI_ACTIVITY_KIND_KERNEL is a view or a virtual table, not a table");
  const std::string strings = dir.Path("strings_view.sqlite");
  MakeSqlite(strings,
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
             " streamId INTEGER, demangledName INTEGER, shortName INTEGER);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1, 1);"
             "CREATE VIEW StringIds AS SELECT 1 AS id, 'k' AS value;");
  ExpectInvalid(ImportNsys(strings), strings, "StringIds is a view or a virtual table");
}

// A time stored as text or NULL read as 0, and a negative byte count was
// taken as is: both are refused, naming the table and the column.
TEST(ImportBadInput, NsysColumnsOfTheWrongTypeAreRefused) {
  TempDir dir;
  const std::string schema =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, demangledName, shortName);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, streamId, bytes, copyKind);";
  const std::pair<const char*, const char*> cases[] = {
      {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('soon', 20, 0, 7, 1, 1);",
       "CUPTI_ACTIVITY_KIND_KERNEL has a start that is not an integer"},
      {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, NULL, 0, 7, 1, 1);",
       "CUPTI_ACTIVITY_KIND_KERNEL has a end that is NULL"},
      {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0.5, 7, 1, 1);",
       "has a deviceId that is not an integer"},
      {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 1);"
       "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (12, 18, 0, 7, -4096, 1);",
       "CUPTI_ACTIVITY_KIND_MEMCPY has a negative byte count"},
  };
  int i = 0;
  for (const auto& [rows, problem] : cases) {
    const std::string path = dir.Path("typed" + std::to_string(i++) + ".sqlite");
    MakeSqlite(path, schema + rows);
    ExpectInvalid(ImportNsys(path), path, problem);
  }
}

// Every statement on an export shares one budget of work, in proportion to
// the file's size, so that no query over a crafted file runs without bound:
// here a budget far below what the file needs stops the import with one line.
TEST(ImportBadInput, NsysQueriesStopAtTheirWorkBudget) {
  TempDir dir;
  const std::string path = dir.Path("rows.sqlite");
  MakeSqlite(path,
             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
             " streamId INTEGER, demangledName INTEGER, shortName INTEGER);"
             "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 20000)"
             " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 10 * x, 10 * x + 5, 0, 7, 1, 1 FROM n;");
  auto tight = importers::SqliteDb::OpenReadOnly(path, 50'000);
  ASSERT_TRUE(tight.ok()) << tight.status().message();
  importers::NsysRows rows;
  const Status s = importers::ReadNsysRows(*tight, &rows);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind(path + ": its queries need more work than a file of its size can hold", 0), 0u)
      << s.message();
  // The budget by its size reads the whole file.
  const auto whole = ImportNsys(path);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(whole->ranks.at(0).events.size(), 20000u);
}

// The Kineto files of one job must agree on its world size, name each rank
// once, and every rank must be below the world size.
TEST(ImportBadInput, KinetoFilesOfOneJobThatDisagreeAreRefused) {
  TempDir dir;
  const auto trace = [&](const std::string& name, const std::string& info) {
    std::string text = kValidTrace;
    text.insert(1, "\"distributedInfo\": " + info + ", ");
    return dir.Write(name, text);
  };
  const std::string r0of4 = trace("r0.json", R"({"rank": 0, "world_size": 4})");
  const std::string r1of8 = trace("r1.json", R"({"rank": 1, "world_size": 8})");
  const std::string again0 = trace("again0.json", R"({"rank": 0, "world_size": 4})");
  const std::string r5of4 = trace("r5.json", R"({"rank": 5, "world_size": 4})");
  ExpectInvalid(ImportKineto({r0of4, r1of8}), r1of8, "world_size 8, but " + r0of4 + " says 4");
  ExpectInvalid(ImportKineto({r0of4, again0}), again0, "rank 0 again (" + r0of4 + " is rank 0 too)");
  ExpectInvalid(ImportKineto({r0of4, r5of4}), r5of4, "rank 5 is not below the job's world_size 4");
  // Files that agree: every rank carries the job's world size, also the one without distributedInfo.
  const std::string r1of4 = trace("r1of4.json", R"({"rank": 1, "world_size": 4})");
  const std::string plain = dir.Write("plain.json", kValidTrace);
  const auto ok = ImportKineto({r0of4, r1of4, plain});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  for (const ImportedRank& r : ok->ranks) EXPECT_EQ(r.world, 4);
  EXPECT_EQ(ok->ranks[2].rank, 2);
}

}  // namespace
}  // namespace braid
