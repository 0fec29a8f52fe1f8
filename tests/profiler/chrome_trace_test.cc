#include "braid/chrome_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace braid {
namespace chrome_trace_test {
namespace {

Event Ev(int rank, int lane, EventKind kind, const char* name, int64_t s, int64_t e, int peer = -1, int64_t corr = -1) {
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
  in.events = {Ev(0, 0, EventKind::kCompute, "gemm", 1000, 2000), Ev(0, 1, EventKind::kComm, "send", 2000, 3000, 1, 7),
               Ev(1, 1, EventKind::kComm, "recv", 2100, 3100, 0, 7), Ev(1, 0, EventKind::kCompute, "gemm", 1500, 2500)};
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

// Layer plans name steps after their op ("fc2.dgrad.send"): their transfers
// still get arrows, and a name merely ending in "send" does not.
TEST(ChromeTrace, LayerStepsNamedAfterTheirOpStillGetFlows) {
  ChromeTraceInput in = TwoRanks();
  in.events[1].name = "fc2.dgrad.send";
  in.events[2].name = "fc2.dgrad.recv";
  int starts = 0;
  const auto named = ChromeTrace(in);
  for (const auto& e : named["traceEvents"]) starts += e["ph"] == "s";
  EXPECT_EQ(starts, 1);
  in.events[1].name = "resend";
  const auto unnamed = ChromeTrace(in);
  for (const auto& e : unnamed["traceEvents"]) EXPECT_NE(e["ph"], "s");
}

TEST(ChromeTrace, UnmatchedRecvHasNoFlow) {
  ChromeTraceInput in = TwoRanks();
  in.events[1].correlation = 8;  // the send no longer matches
  const auto j = ChromeTrace(in);
  for (const auto& e : j["traceEvents"]) EXPECT_NE(e["ph"], "s");
}

}  // namespace
}  // namespace chrome_trace_test
}  // namespace braid

namespace braid {
namespace chrome_trace_test {
namespace {

// Checks what Perfetto's JSON importer needs: on every (pid, tid), slices
// sorted by start either nest or do not overlap.
void ExpectProperNesting(const nlohmann::json& trace) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const double ts = e["ts"], dur = e["dur"];
    slices[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back({ts, ts + dur});
  }
  for (auto& [key, v] : slices) {
    std::sort(v.begin(), v.end(),
              [](auto a, auto b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
    std::vector<double> open;
    for (auto [b, e] : v) {
      while (!open.empty() && open.back() <= b) open.pop_back();
      ASSERT_TRUE(open.empty() || e <= open.back())
          << "pid " << key.first << " tid " << key.second << " slice at " << b;
      open.push_back(e);
    }
  }
}

TEST(ChromeTrace, OverlappingEventsOfOneLaneGoToExtraTracks) {
  ChromeTraceInput in;
  in.lanes = {{0, 2, "cpu runtime"}};
  // Two CPU threads merged into one lane: [0,10) and [5,15) overlap without nesting; [6,8) nests in [5,15).
  in.events = {Ev(0, 2, EventKind::kMarker, "cudaLaunchKernel", 0, 10),
               Ev(0, 2, EventKind::kMarker, "cudaMemcpy", 5, 15), Ev(0, 2, EventKind::kMarker, "inner", 6, 8),
               Ev(0, 2, EventKind::kMarker, "later", 20, 30)};
  const auto j = ChromeTrace(in);
  ExpectProperNesting(j);
  std::map<std::string, int> tid_of;
  std::set<std::string> thread_names;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") tid_of[e["name"].get<std::string>()] = e["tid"].get<int>();
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(tid_of["cudaLaunchKernel"], 2);
  EXPECT_NE(tid_of["cudaMemcpy"], 2);
  EXPECT_EQ(tid_of["inner"], 2);  // nests inside cudaLaunchKernel
  EXPECT_EQ(tid_of["later"], 2);
  EXPECT_TRUE(thread_names.count("cpu runtime"));
  EXPECT_TRUE(thread_names.count("cpu runtime (2)"));
}

TEST(ChromeTrace, BackendLanesStayOneTrackEach) {
  const auto j = ChromeTrace(TwoRanks());
  ExpectProperNesting(j);
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      EXPECT_LT(e["tid"].get<int>(), 1000);
    }
  }
}

}  // namespace
}  // namespace chrome_trace_test
}  // namespace braid
