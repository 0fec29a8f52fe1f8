#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/store.h"
#include "store_test_util.h"

namespace braid {
namespace {

using testing::MakeEvents;
using testing::MakeLanes;
using testing::RawDb;
using testing::SampleMeta;
using testing::TempDir;

std::unique_ptr<Store> OpenOrDie(const std::string& path, bool read_only = false) {
  Result<std::unique_ptr<Store>> s = Store::Open(path, read_only);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(*s) : nullptr;
}

// "2024-05-01T12:00:00.123Z"
bool IsIsoUtcMillis(const std::string& t) {
  const std::string shape = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (t.size() != shape.size()) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(t[i])) : t[i] != shape[i]) return false;
  }
  return true;
}

void ExpectSameEvent(const Event& a, const Event& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.lane, b.lane);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.flops, b.flops);
  EXPECT_EQ(a.chunk, b.chunk);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.peer, b.peer);
  EXPECT_EQ(a.correlation, b.correlation);
}

// Every field at an edge: negative chunk/step/peer, ns near 2^62, huge
// bytes, fractional flops, every kind; given out of order with a tie.
std::vector<Event> EdgeEvents() {
  std::vector<Event> ev;
  const int64_t big = int64_t(1) << 62;
  auto add = [&](int rank, int lane, int64_t start, EventKind kind, std::string name) {
    Event& e = ev.emplace_back();
    e.iteration = int(ev.size()) % 3;
    e.rank = rank;
    e.lane = lane;
    e.kind = kind;
    e.name = std::move(name);
    e.start_ns = start;
    e.end_ns = start + 12345;
    e.bytes = (int64_t(1) << 40) + int64_t(ev.size());
    e.flops = 1.5e15 / double(ev.size()) + 0.1;
    e.chunk = -1 - int(ev.size());
    e.step = -2;
    e.peer = -3;
    e.correlation = -(int64_t(1) << 50) - int64_t(ev.size());
  };
  add(1, 1, big, EventKind::kComm, "send to 2");
  add(0, 0, big + 5, EventKind::kCompute, "gemm");
  add(1, 0, 7, EventKind::kReduce, "a name longer than the small-string buffer, with ünïcode");
  add(0, 0, big, EventKind::kCopy, "copy");
  add(0, 2, 0, EventKind::kSync, "");
  add(0, 0, big, EventKind::kMarker, "tie: second of two at the same start");
  return ev;
}

std::vector<Event> InStorageOrder(std::vector<Event> ev) {
  std::stable_sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
    return std::tie(a.rank, a.lane, a.start_ns) < std::tie(b.rank, b.lane, b.start_ns);
  });
  return ev;
}

// Writes `events` as a run of a new store and reads them back: they must
// come back whole, in storage order (rank, lane, start; ties as given).
std::vector<Event> ExpectStoredInStorageOrder(const std::vector<Event>& events) {
  TempDir dir;
  auto store = OpenOrDie(dir.Path("runs.db"));
  Result<int64_t> id = store->WriteRun(SampleMeta(), {}, events, {});
  EXPECT_TRUE(id.ok()) << id.status().message();
  if (!id.ok()) return {};
  Result<std::vector<Event>> loaded = store->LoadEvents(*id);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  if (!loaded.ok()) return {};
  const std::vector<Event> want = InStorageOrder(events);
  EXPECT_EQ(loaded->size(), want.size());
  for (size_t i = 0; i < want.size() && i < loaded->size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    ExpectSameEvent((*loaded)[i], want[i]);
  }
  return *loaded;
}

TEST(StoreRoundTrip, EveryEventFieldSurvives) { ExpectStoredInStorageOrder(EdgeEvents()); }

// An importer's events: in time order across lanes, so each lane's starts
// never go back (the writer splits them by lane instead of sorting); the
// tie keeps the order it came in.
TEST(StoreRoundTrip, EventsInTimeOrderAcrossLanesAreStoredByLaneWithTiesAsGiven) {
  std::vector<Event> events = EdgeEvents();
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  const std::vector<Event> loaded = ExpectStoredInStorageOrder(events);
  ASSERT_GE(loaded.size(), 2u);
  // The two events that start together on rank 0's lane 0 kept their order.
  EXPECT_EQ(loaded[0].name, "copy");
  EXPECT_EQ(loaded[1].name, "tie: second of two at the same start");
}

TEST(StoreRoundTrip, MetaSurvivesAndRunIsComplete) {
  TempDir dir;
  auto store = OpenOrDie(dir.Path("runs.db"));
  const RunMeta meta = SampleMeta();
  Result<int64_t> id = store->WriteRun(meta, {}, MakeEvents(2, 2, 2, 3), {});
  ASSERT_TRUE(id.ok()) << id.status().message();

  Result<StoredRun> run = store->GetRun(*id);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->id, *id);
  EXPECT_EQ(run->status, "complete");
  EXPECT_EQ(run->event_count, 24);
  EXPECT_TRUE(IsIsoUtcMillis(run->created_at)) << run->created_at;
  const RunMeta& got = run->meta;
  EXPECT_EQ(got.source, meta.source);
  EXPECT_EQ(got.backend, meta.backend);
  EXPECT_EQ(got.topology, meta.topology);
  EXPECT_EQ(got.workload.Describe(), meta.workload.Describe());
  EXPECT_EQ(got.config_json, meta.config_json);
  EXPECT_EQ(got.host, meta.host);
  EXPECT_EQ(got.braid_version, meta.braid_version);
  EXPECT_EQ(got.git_revision, meta.git_revision);
  EXPECT_EQ(got.iterations, meta.iterations);
  EXPECT_EQ(got.warmup, meta.warmup);
  EXPECT_EQ(got.notes_json, meta.notes_json);
}

TEST(StoreRoundTrip, EmptyJsonIsStoredAsEmptyObject) {
  TempDir dir;
  auto store = OpenOrDie(dir.Path("runs.db"));
  RunMeta meta = SampleMeta();
  meta.config_json.clear();
  meta.notes_json.clear();
  meta.source = "imported";
  Result<int64_t> id = store->WriteRun(meta, {}, {}, {});
  ASSERT_TRUE(id.ok()) << id.status().message();
  Result<StoredRun> run = store->GetRun(*id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->meta.config_json, "{}");
  EXPECT_EQ(run->meta.notes_json, "{}");
  EXPECT_EQ(run->meta.source, "imported");
  Result<std::vector<Event>> events = store->LoadEvents(*id);
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->empty());
}

TEST(StoreRoundTrip, ImportedRunWithoutWorkloadKeepsOnlyTheWorldSize) {
  TempDir dir;
  auto store = OpenOrDie(dir.Path("runs.db"));
  RunMeta meta = SampleMeta();
  meta.source = "imported";
  meta.has_workload = false;
  meta.workload.tp = 8;
  Result<int64_t> id = store->WriteRun(meta, {}, {}, {});
  ASSERT_TRUE(id.ok()) << id.status().message();
  Result<StoredRun> run = store->GetRun(*id);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_FALSE(run->meta.has_workload);
  EXPECT_EQ(run->meta.workload.tp, 8);
  EXPECT_EQ(run->meta.workload.m, 0);
  Result<std::vector<StoredRun>> all = store->ListRuns();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->back().meta.has_workload == false);
}

TEST(StoreRoundTrip, LanesAndMetricsSurvive) {
  TempDir dir;
  auto store = OpenOrDie(dir.Path("runs.db"));
  const std::vector<Event> events = MakeEvents(3, 2, 2, 4);
  const RunMetrics metrics = ComputeRunMetrics(events);
  const std::vector<MetricRow> rows = MetricRowsOf(metrics);
  ASSERT_EQ(rows.size(), size_t(3 * 2 * kMetricCount));
  Result<int64_t> id = store->WriteRun(SampleMeta(), MakeLanes(2, 2), events, rows);
  ASSERT_TRUE(id.ok()) << id.status().message();

  Result<std::vector<LaneInfo>> lanes = store->LoadLanes(*id);
  ASSERT_TRUE(lanes.ok()) << lanes.status().message();
  ASSERT_EQ(lanes->size(), 4u);
  EXPECT_EQ((*lanes)[3].rank, 1);
  EXPECT_EQ((*lanes)[3].lane, 1);
  EXPECT_EQ((*lanes)[3].name, "comm1");
  EXPECT_EQ((*lanes)[3].kind, "comm");

  Result<std::vector<MetricRow>> loaded = store->LoadMetrics(*id);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->size(), rows.size());
  for (const MetricRow& m : *loaded) {
    Metric which = Metric::kMakespan;
    for (Metric k : kAllMetrics) {
      if (MetricName(k) == m.name) which = k;
    }
    ASSERT_EQ(MetricName(which), m.name);
    EXPECT_EQ(m.value, metrics.values[size_t(m.iteration)][size_t(m.rank)][which]) << m.name;
  }
  // The summaries rebuilt from the rows equal those computed from the events.
  const RunMetrics back = RunMetricsFromRows(*loaded);
  ASSERT_EQ(back.iterations, metrics.iterations);
  ASSERT_EQ(back.ranks, metrics.ranks);
  for (Metric k : kAllMetrics) {
    EXPECT_DOUBLE_EQ(back.overall[k].p50, metrics.overall[k].p50) << MetricName(k);
    EXPECT_DOUBLE_EQ(back.overall[k].p99, metrics.overall[k].p99) << MetricName(k);
    EXPECT_DOUBLE_EQ(back.per_rank[1][k].p50, metrics.per_rank[1][k].p50) << MetricName(k);
  }
}

TEST(StoreRoundTrip, NamesAreInternedOnce) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  auto store = OpenOrDie(path);
  const std::vector<Event> events = MakeEvents(4, 2, 2, 8, /*distinct_names=*/5);  // 128 events
  std::set<std::string> names;
  for (const Event& e : events) names.insert(e.name);
  ASSERT_TRUE(store->WriteRun(SampleMeta(), {}, events, {{0, 0, "makespan_ns", 1.0}}).ok());
  ASSERT_TRUE(store->WriteRun(SampleMeta(), {}, events, {{0, 0, "makespan_ns", 2.0}}).ok());

  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM strings"), int64_t(names.size()) + 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM strings WHERE text = 'gemm chunk 3'"), 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), 2 * int64_t(events.size()));
}

TEST(StoreRoundTrip, ListRunsInIdOrder) {
  TempDir dir;
  auto store = OpenOrDie(dir.Path("runs.db"));
  std::vector<int64_t> ids;
  for (const char* backend : {"sim", "cpu", "cuda"}) {
    RunMeta meta = SampleMeta();
    meta.backend = backend;
    Result<int64_t> id = store->WriteRun(meta, {}, MakeEvents(1, 1, 1, 2), {});
    ASSERT_TRUE(id.ok()) << id.status().message();
    ids.push_back(*id);
  }
  Result<std::vector<StoredRun>> runs = store->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*runs)[i].id, ids[i]);
  EXPECT_EQ((*runs)[0].meta.backend, "sim");
  EXPECT_EQ((*runs)[2].meta.backend, "cuda");
}

TEST(StoreRoundTrip, MissingRunIsNotFound) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  auto store = OpenOrDie(path);
  const std::string want = "no run 42 in " + path;
  Result<StoredRun> run = store->GetRun(42);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(run.status().message(), want);
  EXPECT_EQ(store->LoadEvents(42).status().message(), want);
  EXPECT_EQ(store->LoadLanes(42).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->LoadMetrics(42).status().code(), StatusCode::kNotFound);
}

TEST(StoreRoundTrip, BadRunIsRejectedAndNothingWritten) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  auto store = OpenOrDie(path);
  const std::vector<Event> events = MakeEvents(1, 1, 2, 3);

  RunMeta bad_source = SampleMeta();
  bad_source.source = "guessed";
  RunMeta bad_json = SampleMeta();
  bad_json.config_json = "{algorithm: ring";
  std::vector<Event> backwards = events;
  backwards[2].end_ns = backwards[2].start_ns - 1;
  const std::vector<LaneInfo> duplicate_lanes = {{0, 0, "compute", "compute"}, {0, 0, "again", "compute"}};
  const std::vector<MetricRow> duplicate_metrics = {{0, 0, "makespan_ns", 1}, {0, 0, "makespan_ns", 2}};

  struct Case {
    const char* what;
    Result<int64_t> result;
    const char* message_part;
  };
  const Case cases[] = {
      {"source", store->WriteRun(bad_source, {}, events, {}), "'measured' or 'imported'"},
      {"json", store->WriteRun(bad_json, {}, events, {}), "config_json is not valid JSON"},
      {"order", store->WriteRun(SampleMeta(), {}, backwards, {}), "ends before it starts"},
      {"lanes", store->WriteRun(SampleMeta(), duplicate_lanes, events, {}), "UNIQUE constraint failed: lanes"},
      {"metrics", store->WriteRun(SampleMeta(), {}, events, duplicate_metrics), "UNIQUE constraint failed: metrics"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_FALSE(c.result.ok());
    EXPECT_EQ(c.result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(c.result.status().message().find(c.message_part), std::string::npos) << c.result.status().message();
  }
  Result<std::vector<StoredRun>> runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  RawDb raw(path);  // the failed transactions left no rows anywhere
  EXPECT_EQ(raw.Int("SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM strings) +"
                    " (SELECT count(*) FROM events) + (SELECT count(*) FROM lanes)"),
            0);
  // The connection is still usable after a rolled-back write.
  EXPECT_TRUE(store->WriteRun(SampleMeta(), {}, events, {}).ok());
}

TEST(StoreRoundTrip, ReadOnlyStoreReadsButRefusesWrites) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  {
    auto store = OpenOrDie(path);
    ASSERT_TRUE(store->WriteRun(SampleMeta(), {}, MakeEvents(1, 1, 1, 3), {}).ok());
  }
  auto reader = OpenOrDie(path, /*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  Result<std::vector<StoredRun>> runs = reader->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_EQ(runs->size(), 1u);
  Result<int64_t> w = reader->WriteRun(SampleMeta(), {}, {}, {});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "store " + path + " was opened read-only");
  EXPECT_FALSE(reader->CreateSession({}).ok());
}

}  // namespace
}  // namespace braid
