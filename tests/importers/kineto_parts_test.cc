// A Kineto trace read in parts (ReadKinetoRecords with a part size), on one
// thread or two, gives exactly the records, counts and errors of one read
// of the whole file, wherever the guessed part ends fall: between events,
// inside strings, inside nested arrays, in another root array, or past a
// bad event.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "file_bytes.h"
#include "gzip_window.h"
#include "kineto_parse.h"
#include "kineto_records.h"
#include "test_files.h"

namespace braid::importers {
namespace kineto_parts_test {
namespace {

PaddedBytes Bytes(std::string_view text) {
  PaddedBytes b;
  std::memcpy(b.Reserve(text.size()), text.data(), text.size());
  b.SetSize(text.size());
  return b;
}

// One event in Kineto's layout; `name` is put in as given (already JSON
// text between the quotes), `extra_args` after the usual ones.
std::string Event(int i, std::string_view name, std::string_view extra_args = "") {
  const std::string n = std::to_string(i);
  return "  {\n    \"ph\": \"X\", \"cat\": \"" + std::string(i % 3 == 0 ? "kernel" : "cuda_runtime") +
         "\", \"name\": \"" + std::string(name) +
         "\", \"pid\": 0, \"tid\": 7,\n    \"ts\": " + std::to_string(1000 + i * 10) +
         ".5, \"dur\": 4,\n    \"args\": {\n      \"stream\": 7, \"correlation\": " + n + ", \"device\": 0" +
         std::string(extra_args) + "\n    }\n  }";
}

struct TraceShape {
  int events = 400;
  std::string (*name)(int) = [](int i) { return "gemm_" + std::to_string(i); };
  std::string (*extra_args)(int) = [](int) { return std::string(); };
  std::string before;  // root keys before traceEvents (each ending with ",\n")
  std::string after;   // root keys after it (each starting with ",\n")
};

std::string Trace(const TraceShape& t) {
  std::string s = "{\n  \"schemaVersion\": 1,\n" + t.before + "  \"traceEvents\": [\n";
  for (int i = 0; i < t.events; ++i) s += (i > 0 ? ",\n" : "") + Event(i, t.name(i), t.extra_args(i));
  return s + "\n  ]" + t.after + "\n}\n";
}

struct Read {
  Status status;
  KinetoRecords records;
};

// `threads`: the parser's part threads (2: parts parsed on two threads).
Read ReadWith(const PaddedBytes& json, size_t part_bytes, int threads = 1) {
  Read r;
  KinetoParser parser(threads);
  r.status = ReadKinetoRecords(json, "t.json", &r.records, &parser, part_bytes);
  return r;
}

void ExpectSameRecords(const KinetoRecords& got, const KinetoRecords& want) {
  EXPECT_EQ(got.events_seen, want.events_seen);
  EXPECT_EQ(got.rank, want.rank);
  EXPECT_EQ(got.world, want.world);
  EXPECT_EQ(got.events.size(), want.events.size());
  for (size_t i = 0; i < want.events.size() && i < got.events.size(); ++i) {
    const KinetoRecord &a = got.events[i], &b = want.events[i];
    EXPECT_TRUE(a.cat == b.cat && a.name == b.name && a.ts == b.ts && a.dur == b.dur && a.stream == b.stream &&
                a.correlation == b.correlation && a.device == b.device && a.bytes == b.bytes &&
                a.has_correlation == b.has_correlation)
        << "record " << i << ": " << a.name << " vs " << b.name;
  }
}

// Returns how many parts the read in parts took (1: it fell back to a
// whole read).
int ExpectSameRead(const std::string& text, size_t part_bytes, int threads) {
  SCOPED_TRACE("part_bytes " + std::to_string(part_bytes) + ", threads " + std::to_string(threads));
  const PaddedBytes json = Bytes(text);
  const Read whole = ReadWith(json, 0), parts = ReadWith(json, part_bytes, threads);
  if (threads == 1 || parts.records.parts == 1) {
    EXPECT_EQ(parts.records.parts_second, 0);
  }
  // The second thread is free when the first part is cut: it takes it.
  if (threads == 2 && parts.records.parts > 1) {
    EXPECT_GE(parts.records.parts_second, 1);
  }
  EXPECT_EQ(whole.records.parts, 1);
  EXPECT_EQ(parts.status.ok(), whole.status.ok());
  EXPECT_EQ(parts.status.message(), whole.status.message());
  if (!whole.status.ok() || !parts.status.ok()) return parts.records.parts;
  ExpectSameRecords(parts.records, whole.records);
  return parts.records.parts;
}

// The same text gzipped and read as it inflates (ReadKinetoRecordsInflating):
// when that reads it, the records of a whole read; when a whole read fails,
// it does not read it (the caller's whole read names the problem). Returns
// its parts (0: it did not read it).
int ExpectInflatingReadAsWhole(const std::string& text, size_t part_bytes, int threads = 1) {
  SCOPED_TRACE("inflating, part_bytes " + std::to_string(part_bytes) + ", threads " + std::to_string(threads));
  const Read whole = ReadWith(Bytes(text), 0);
  Read inflating;
  KinetoParser parser(threads);
  const bool read =
      ReadKinetoRecordsInflating(testing_files::Gzip(text), "t.json", &inflating.records, &parser, part_bytes);
  if (!read) {
    EXPECT_EQ(inflating.records.events.size(), 0u) << "a refused read leaves the records as they came";
    return 0;
  }
  EXPECT_TRUE(whole.status.ok()) << "read what a whole read refuses: " << whole.status.message();
  ExpectSameRecords(inflating.records, whole.records);
  return inflating.records.parts;
}

// Part sizes that put the guessed ends at many different places; the
// parts each took (from memory; from gzip as it inflates, too, when this
// build has ISA-L), on one thread and on two alike.
std::vector<int> ExpectSameReadAtManySizes(const std::string& text) {
  std::vector<int> parts;
  for (size_t part : {size_t(64), size_t(200), size_t(1000), size_t(4096), text.size() / 3}) {
    parts.push_back(ExpectSameRead(text, part, 1));
    EXPECT_EQ(ExpectSameRead(text, part, 2), parts.back());
    for (int threads : {1, 2}) {
      const int inflating = ExpectInflatingReadAsWhole(text, part, threads);
      if (GzipWindow::Available() && inflating > 0) {
        EXPECT_EQ(inflating, parts.back());
      }
    }
  }
  return parts;
}

TEST(KinetoParts, APlainTraceReadsTheSameInParts) {
  TraceShape t;
  t.before = "  \"distributedInfo\": {\"rank\": 3, \"world_size\": 8},\n";
  const std::string text = Trace(t);
  // 64-byte parts end after each event; a third of the file, in 3 or 4.
  const std::vector<int> parts = ExpectSameReadAtManySizes(text);
  EXPECT_EQ(parts.front(), 400);
  EXPECT_GE(parts.back(), 3);
  const Read r = ReadWith(Bytes(text), 1000);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.records.events_seen, 400);
  EXPECT_EQ(r.records.rank, 3);
  EXPECT_GT(r.records.parts, 50);
  if (GzipWindow::Available()) {
    EXPECT_EQ(ExpectInflatingReadAsWhole(text, 1000), r.records.parts);
  }
}

TEST(KinetoParts, RootKeysAfterTheEventsAreRead) {
  TraceShape t;
  t.after = ",\n  \"distributedInfo\": {\"rank\": 5, \"world_size\": 6},\n  \"traceName\": \"x\"";
  EXPECT_EQ(ExpectSameReadAtManySizes(Trace(t)).front(), 400);
  EXPECT_EQ(ReadWith(Bytes(Trace(t)), 200).records.world, 6);
}

// A stretch with no event boundary longer than kMaxPartSpan (padding of
// spaces between two events): gzip is counted, not held, and refused when
// it inflates past its limit; under it, the caller's whole read reads it.
TEST(KinetoParts, AStretchPastTheMaxPartSpanIsCountedNotHeld) {
  if (!GzipWindow::Available()) GTEST_SKIP() << "built without ISA-L (libisal-dev)";
  TraceShape t;
  t.events = 2;
  std::string text = Trace(t);
  const size_t between = text.find("},\n") + 2;
  text.insert(between, kMaxPartSpan + (size_t(4) << 20), ' ');
  const std::string gz = testing_files::Gzip(text);
  KinetoRecords records;
  bool too_big = true;
  EXPECT_FALSE(ReadKinetoRecordsInflating(gz, "t.json", &records, nullptr, kKinetoPartBytes, kMaxTraceBytes, &too_big));
  EXPECT_FALSE(too_big) << "under the limit: the whole read takes it";
  EXPECT_TRUE(ReadKinetoRecords(Bytes(text), "t.json", &records).ok());
  EXPECT_EQ(records.events_seen, 2);
  too_big = false;
  EXPECT_FALSE(
      ReadKinetoRecordsInflating(gz, "t.json", &records, nullptr, kKinetoPartBytes, text.size() - 1, &too_big));
  EXPECT_TRUE(too_big) << "past the limit, found by counting";
}

// Names holding "}, {" (escaped quotes around it) put guessed ends inside
// strings: those parts are refused and the whole file is read.
TEST(KinetoParts, EndsGuessedInsideStrings) {
  TraceShape t;
  t.name = [](int i) { return "op \\\"}, {\\\" " + std::to_string(i) + " },\\n{ \\\\"; };
  EXPECT_EQ(ExpectSameReadAtManySizes(Trace(t)).front(), 1);  // the first guess is in a name
}

// Arrays of objects nested in args, and other root arrays of objects
// before and after traceEvents, all look like ends of events. (A guess in
// one sends the read back to whole: such traces gain nothing from parts.)
TEST(KinetoParts, EndsGuessedInNestedOrOtherArrays) {
  TraceShape nested;
  nested.extra_args = [](int i) {
    return ", \"inputs\": [{\"shape\": [" + std::to_string(i) + "]},\n {\"shape\": []}, {\"x\": {}}]";
  };
  ExpectSameReadAtManySizes(Trace(nested));

  TraceShape other;
  std::string devices = ",\n  \"deviceProperties\": [";
  for (int d = 0; d < 200; ++d) devices += (d ? "},\n    {" : "{") + std::string("\"id\": ") + std::to_string(d);
  other.after = devices + "}]";
  other.before = "  \"deviceProperties0\": [{\"id\": 0},\n {\"id\": 1}],\n";
  const std::vector<int> parts = ExpectSameReadAtManySizes(Trace(other));
  EXPECT_EQ(parts.front(), 1);  // the first guess is in deviceProperties0
}

// A second traceEvents array, and events that are not objects: whatever a
// whole read makes of them.
TEST(KinetoParts, TwoEventArraysAndOddElements) {
  TraceShape t;
  t.after = ",\n  \"traceEvents\": [" + Event(9000, "late") + ",\n" + Event(9001, "later") + "]";
  ExpectSameReadAtManySizes(Trace(t));
  std::string odd = Trace(TraceShape{});
  odd.insert(odd.find("  {", odd.size() / 2), "7,\n  [],\n");
  ExpectSameReadAtManySizes(odd);
}

// What follows the root object is not read by a whole read; a guessed end
// there must not make the read in parts take it as events.
TEST(KinetoParts, ContentAfterTheRootIsNotRead) {
  TraceShape t;
  t.events = 40;
  std::string text = Trace(t) + " {\"x\": [";
  for (int i = 0; i < 300; ++i) text += (i ? "},\n  {" : "{") + std::string("\"ph\": \"X\", \"ts\": 1");
  text += "}]}";
  const Read whole = ReadWith(Bytes(text), 0);
  ASSERT_TRUE(whole.status.ok()) << whole.status.message();
  EXPECT_EQ(whole.records.events_seen, 40);
  ExpectSameReadAtManySizes(text);
}

// A bad event in a late part: the error, and its index, of a whole read.
TEST(KinetoParts, AnErrorLateInTheFileNamesTheSameEvent) {
  std::string text = Trace(TraceShape{});
  const size_t at = text.find("\"ts\": ", text.size() * 3 / 4);
  text.replace(at, 6, "\"ts\": \"soon\", \"x\": ");
  const Read whole = ReadWith(Bytes(text), 0);
  ASSERT_FALSE(whole.status.ok());
  EXPECT_NE(whole.status.message().find("traceEvents["), std::string::npos) << whole.status.message();
  ExpectSameReadAtManySizes(text);
  // Truncated anywhere: the same error too.
  for (size_t cut : {text.size() / 2, text.size() - 3}) ExpectSameReadAtManySizes(text.substr(0, cut));
}

// A job's threads: one file each, and a file's parts on two only where the
// threads are at least twice the files (a user's --threads 1 stays one).
TEST(KinetoParts, AFileIsParsedOnTwoThreadsOnlyWhenTheJobHasTwiceTheThreads) {
  EXPECT_EQ(WorkerThreads(2, 1), 1);
  EXPECT_EQ(PartThreads(2, 1), 2);
  EXPECT_EQ(PartThreads(1, 1), 1);
  EXPECT_EQ(PartThreads(3, 1), 2);
  EXPECT_EQ(WorkerThreads(2, 2), 2);
  EXPECT_EQ(PartThreads(2, 2), 1);
  EXPECT_EQ(PartThreads(4, 2), 2);
  EXPECT_EQ(PartThreads(3, 2), 1);
  EXPECT_EQ(PartThreads(16, 64), 1);
}

}  // namespace
}  // namespace kineto_parts_test
}  // namespace braid::importers
