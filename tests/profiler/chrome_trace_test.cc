#include "braid/chrome_trace.h"

#include <gtest/gtest.h>

#include <map>

namespace braid {
namespace {

Event Ev(int rank, int lane, EventKind kind, const char* name, int64_t s, int64_t e, int peer = -1,
         int64_t corr = -1) {
  Event ev;
  ev.rank = rank;
  ev.lane = lane;
  ev.kind = kind;
  ev.name = name;
  ev.start_ns = s;
  ev.end_ns = e;
  ev.peer = peer;
  ev.correlation = corr;
  ev.bytes = 4096;
  return ev;
}

ChromeTraceInput TwoRanks() {
  ChromeTraceInput in;
  in.title = "test";
  in.lanes = {{0, 0, "compute"}, {0, 1, "comm0"}, {1, 0, "compute"}, {1, 1, "comm0"}};
  in.events = {Ev(0, 0, EventKind::kCompute, "gemm", 1000, 2000),
               Ev(0, 1, EventKind::kComm, "send", 2000, 3000, 1, 7),
               Ev(1, 1, EventKind::kComm, "recv", 2100, 3100, 0, 7),
               Ev(1, 0, EventKind::kCompute, "gemm", 1500, 2500)};
  return in;
}

TEST(ChromeTrace, NamesAndSortsProcessesAndThreads) {
  const auto j = ChromeTrace(TwoRanks());
  std::map<std::string, int> meta;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M") meta[e["name"].get<std::string>()]++;
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 0 && e["tid"] == 1) {
      EXPECT_EQ(e["args"]["name"], "comm0");
    }
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 1) {
      EXPECT_EQ(e["args"]["name"], "rank 1");
    }
  }
  EXPECT_EQ(meta["process_name"], 2);
  EXPECT_EQ(meta["process_sort_index"], 2);
  EXPECT_EQ(meta["thread_name"], 4);
  EXPECT_EQ(meta["thread_sort_index"], 4);
}

TEST(ChromeTrace, SlicesAreRelativeMicrosecondsWithArgs) {
  const auto j = ChromeTrace(TwoRanks());
  int slices = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++slices;
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_EQ(e["args"]["bytes"], 4096);
    if (e["name"] == "send") {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.0);  // (2000 − 1000) ns
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 1.0);
      EXPECT_EQ(e["args"]["peer"], 1);
      EXPECT_EQ(e["cat"], "comm");
    }
  }
  EXPECT_EQ(slices, 4);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
}

TEST(ChromeTrace, FlowGoesFromSendSliceToRecvSlice) {
  const auto j = ChromeTrace(TwoRanks());
  int starts = 0, finishes = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "s") {
      ++starts;
      EXPECT_EQ(e["pid"], 0);
      EXPECT_EQ(e["tid"], 1);
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.0);
    }
    if (e["ph"] == "f") {
      ++finishes;
      EXPECT_EQ(e["pid"], 1);
      EXPECT_EQ(e["bp"], "e");
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.1);
    }
  }
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(finishes, 1);
}

TEST(ChromeTrace, UnmatchedRecvHasNoFlow) {
  ChromeTraceInput in = TwoRanks();
  in.events[1].correlation = 8;  // the send no longer matches
  const auto j = ChromeTrace(in);
  for (const auto& e : j["traceEvents"]) EXPECT_NE(e["ph"], "s");
}

}  // namespace
}  // namespace braid
