// The streamed Chrome trace: batches of any size give the trace of the
// whole run, handed over in pieces; bad order is refused; transfers pair.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/chrome_trace.h"

namespace braid {
namespace {

// A ring-like run in the store's order: per rank a compute lane of GEMMs and
// a comm lane of sends to the next rank and receives from the previous one.
std::vector<Event> RingRun(int ranks, int iterations, int steps) {
  std::vector<Event> events;
  for (int r = 0; r < ranks; ++r) {
    for (int lane = 0; lane < 2; ++lane) {
      for (int it = 0; it < iterations; ++it) {
        for (int s = 0; s < steps; ++s) {
          const int64_t t0 = 1'000'003 + int64_t(it) * 1'000'000 + int64_t(s) * 10'000;
          if (lane == 0) {
            Event& e = events.emplace_back();
            e.rank = r, e.lane = 0, e.iteration = it, e.kind = EventKind::kCompute, e.name = "gemm";
            e.start_ns = t0, e.end_ns = t0 + 9'000, e.flops = 1e9, e.chunk = s;
            continue;
          }
          Event& send = events.emplace_back();
          send.rank = r, send.lane = 1, send.iteration = it, send.kind = EventKind::kComm, send.name = "send";
          send.start_ns = t0 + 100, send.end_ns = t0 + 4'000, send.peer = (r + 1) % ranks;
          send.correlation = int64_t(s) * ranks + r, send.bytes = 1 << 20, send.step = s;
          Event& recv = events.emplace_back(send);
          recv.name = "recv", recv.peer = (r + ranks - 1) % ranks;
          recv.correlation = int64_t(s) * ranks + recv.peer, recv.start_ns = t0 + 200;
        }
      }
    }
  }
  return events;
}

std::string Write(const std::vector<Event>& events, size_t batch, size_t* pieces = nullptr, size_t* largest = nullptr) {
  std::string text;
  size_t n = 0, big = 0;
  ChromeTraceWriter w(
      [&](std::string_view p) {
        text.append(p);
        ++n;
        big = std::max(big, p.size());
        return Status::Ok();
      },
      1'000'003);
  for (size_t at = 0; at < events.size(); at += batch) {
    const size_t len = std::min(batch, events.size() - at);
    EXPECT_TRUE(w.Add(std::span<const Event>(events.data() + at, len)).ok());
  }
  EXPECT_TRUE(w.Finish("ring", {{0, 0, "compute"}, {0, 1, "comm"}}).ok());
  if (pieces != nullptr) *pieces = n;
  if (largest != nullptr) *largest = big;
  return text;
}

TEST(ChromeTraceWriter, AnyBatchingGivesTheTraceOfTheWholeRun) {
  const std::vector<Event> events = RingRun(4, 3, 20);
  ChromeTraceInput in;
  in.title = "ring";
  in.lanes = {{0, 0, "compute"}, {0, 1, "comm"}};
  in.events = events;
  std::shuffle(in.events.begin(), in.events.end(), std::mt19937(3));  // ChromeTrace takes any order
  const nlohmann::json whole = ChromeTrace(in);
  ASSERT_FALSE(whole.is_null());
  for (size_t batch : {size_t(1), size_t(13), size_t(100000)}) {
    const std::string text = Write(events, batch);
    EXPECT_EQ(nlohmann::json::parse(text), whole) << "batch " << batch;
  }
  // Every send found its receive: one s/f pair per transfer.
  size_t starts = 0, ends = 0;
  for (const auto& e : whole["traceEvents"]) {
    starts += e["ph"] == "s";
    ends += e["ph"] == "f";
  }
  EXPECT_EQ(starts, size_t(4 * 3 * 20));
  EXPECT_EQ(ends, starts);
}

TEST(ChromeTraceWriter, TheTextIsHandedOverInBoundedPieces) {
  const std::vector<Event> events = RingRun(8, 10, 100);  // 24,000 slices, several MB of text
  size_t pieces = 0, largest = 0;
  const std::string text = Write(events, 4096, &pieces, &largest);
  EXPECT_GT(pieces, 3u);
  EXPECT_LT(largest, size_t(2) << 20);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  size_t slices = 0;
  for (const auto& e : j["traceEvents"]) slices += e["ph"] == "X";
  EXPECT_EQ(slices, events.size());
}

TEST(ChromeTraceWriter, AnEventBeforeOneAlreadyAddedIsRefused) {
  std::vector<Event> events = RingRun(2, 1, 3);
  std::swap(events[0], events[2]);
  ChromeTraceWriter w([](std::string_view) { return Status::Ok(); }, 0);
  const Status s = w.Add(events);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("out of order"), std::string::npos) << s.message();
}

TEST(ChromeTraceWriter, ASinksErrorIsReturnedAndKept) {
  const std::vector<Event> events = RingRun(8, 10, 100);
  int calls = 0;
  ChromeTraceWriter w([&](std::string_view) { return ++calls == 1 ? Status::Internal("no space left") : Status::Ok(); },
                      0);
  Status s = w.Add(events);
  if (s.ok()) s = w.Finish("t", {});
  EXPECT_EQ(s.message(), "no space left");
  EXPECT_EQ(calls, 1);
}

TEST(ChromeTraceWriter, NamesThatAreNotUtf8StillMakeAValidFile) {
  Event e;
  e.name = "gemm\xff\"\n";
  e.end_ns = 10;
  std::string text;
  ChromeTraceWriter w(
      [&](std::string_view p) {
        text.append(p);
        return Status::Ok();
      },
      0);
  ASSERT_TRUE(w.Add(std::span<const Event>(&e, 1)).ok());
  ASSERT_TRUE(w.Finish("title \xfe", {}).ok());
  const auto j = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << text;
  EXPECT_EQ(j["traceEvents"][0]["name"], "gemm\xEF\xBF\xBD\"\n");
}

}  // namespace
}  // namespace braid
