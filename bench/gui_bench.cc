// braid-view at scale (gui/): a stored ring run of $BRAID_GUI_BENCH_EVENTS
// events (default 1,000,000; a multiple of 40,000, e.g. 10000000).
//
//   BM_ScanEvents   Store::ScanEvents over the run keeping nothing: the
//                   floor under any load (SQLite handing the rows over)
//   BM_LoadTimeline the streamed timeline alone; BM_OverlapBands its bands
//                   alone (one thread)
//   BM_OpenRun      Store::Open (read-only) + LoadRunForView (the streamed
//                   timeline, its overlap bands on all cores, the summary):
//                   what the viewer's worker does before the window can draw
//   BM_ShowRun      the window's "open this run": request to timeline shown,
//                   the load on the worker while the event loop runs (a 10 ms
//                   timer counts its turns: ui_ticks), then the first paint
//                   (first_paint_ms); goal < 5 s at 10M events
//   BM_Repaint/Z    one offscreen repaint of a 1600x1000 timeline widget at
//                   zoom Z: 0 = the whole run, 1 = one iteration (50 ms),
//                   2 = 100 µs; goal < 16 ms each
//
// Every benchmark reports peak_rss_mb, the process's peak resident size so
// far (getrusage ru_maxrss): goal < 3 GB at 10M events.
//
// The run (bench/ring_run.h, shared with the store benchmark: 8 ranks x
// (compute, comm) lanes x 2500 steps per iteration, comm overlapping compute
// as a ring does) is written one iteration at a time (Store::WriteRunInParts,
// so writing it costs little memory) into a scratch directory under $TMPDIR
// (or /tmp) first, or once into $BRAID_GUI_BENCH_DIR and reused from there;
// 10M events take ~0.5 GB of disk and a few minutes to write.
// Run: QT_QPA_PLATFORM=offscreen build/release/bench/braid_gui_bench
//      BRAID_GUI_BENCH_EVENTS=10000000 QT_QPA_PLATFORM=offscreen build/release/bench/braid_gui_bench
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTimer>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/store.h"
#include "braid/view/main_window.h"
#include "braid/view/overlap_band.h"
#include "braid/view/run_load.h"
#include "braid/view/timeline.h"
#include "braid/view/timeline_widget.h"
#include "ring_run.h"

namespace {

namespace fs = std::filesystem;

using braid::bench::kIterationNs;

using braid::bench::kLanes;
using braid::bench::kPerLane;
using braid::bench::kRanks;

constexpr int64_t kEventsPerIteration = int64_t(kRanks) * kLanes * kPerLane;

int64_t EventsWanted() {
  const char* v = std::getenv("BRAID_GUI_BENCH_EVENTS");
  const int64_t n = v ? std::atoll(v) : 1'000'000;
  if (n < kEventsPerIteration || n % kEventsPerIteration != 0) {
    std::fprintf(stderr, "braid_gui_bench: BRAID_GUI_BENCH_EVENTS must be a multiple of %lld\n",
                 static_cast<long long>(kEventsPerIteration));
    std::exit(2);
  }
  return n;
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

// $BRAID_GUI_BENCH_DIR keeps the store between runs (written there once per
// event count: 10M events take minutes to write); else a scratch directory.
fs::path ScratchDir() {
  if (const char* d = std::getenv("BRAID_GUI_BENCH_DIR")) return d;
  return fs::temp_directory_path() / ("braid_gui_bench_" + std::to_string(getpid()));
}

struct Fixture {
  bool keep = std::getenv("BRAID_GUI_BENCH_DIR") != nullptr;
  fs::path dir = ScratchDir();
  int iterations = int(EventsWanted() / kEventsPerIteration);
  std::string path = (dir / ("ring_" + std::to_string(iterations) + "_iterations.db")).string();
  int64_t run = 0;

  Fixture() {
    fs::create_directories(dir);
    auto store = braid::Store::Open(path);
    if (!store.ok()) Die(store.status());
    if (auto runs = (*store)->ListRuns(); runs.ok() && !runs->empty()) {
      run = runs->front().id;
      return;
    }
    // Every iteration is the first shifted in time: the same metric rows.
    const std::vector<braid::MetricRow> first =
        braid::MetricRowsOf(braid::ComputeRunMetrics(braid::bench::MakeRingIteration(0)));
    braid::Store::RunPart part;
    int next = 0;
    auto id = (*store)->WriteRunInParts(
        [&]() -> braid::Result<const braid::Store::RunPart*> {
          if (next == iterations) return nullptr;
          part.lanes = next == 0 ? braid::bench::RingRunLanes() : std::vector<braid::LaneInfo>{};
          part.events = braid::bench::MakeRingIteration(next++);
          return &part;
        },
        [&]() -> braid::Result<braid::Store::RunEnd> {
          braid::Store::RunEnd end;
          end.meta = braid::bench::RingRunMeta();
          end.meta.iterations = iterations;
          for (int it = 0; it < iterations; ++it) {
            for (braid::MetricRow row : first) {
              row.iteration = it;
              end.metrics.push_back(std::move(row));
            }
          }
          return end;
        });
    if (!id.ok()) Die(id.status());
    run = *id;
  }
  ~Fixture() {
    if (!keep) fs::remove_all(dir);
  }
  static void Die(const braid::Status& s) {
    std::fprintf(stderr, "braid_gui_bench: %s\n", s.message().c_str());
    std::exit(1);
  }
};

Fixture& Stored() {
  static Fixture f;
  return f;
}

// The floor under any load: SQLite handing the run's rows over, batch by
// batch, with nothing kept.
void BM_ScanEvents(benchmark::State& state) {
  Fixture& f = Stored();
  auto store = braid::Store::Open(f.path, /*read_only=*/true);
  if (!store.ok()) Fixture::Die(store.status());
  int64_t events = 0;
  for (auto _ : state) {
    events = 0;
    braid::Status s = (*store)->ScanEvents(f.run, {}, [&](std::span<const braid::Event> batch) {
      events += int64_t(batch.size());
      return braid::Status::Ok();
    });
    if (!s.ok()) Fixture::Die(s);
  }
  state.counters["events"] = double(events);
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_ScanEvents)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// The streamed timeline alone, then its overlap bands alone.
void BM_LoadTimeline(benchmark::State& state) {
  Fixture& f = Stored();
  auto store = braid::Store::Open(f.path, /*read_only=*/true);
  if (!store.ok()) Fixture::Die(store.status());
  for (auto _ : state) {
    auto t = braid::view::LoadTimeline(**store, f.run, {});
    if (!t.ok()) Fixture::Die(t.status());
    benchmark::DoNotOptimize(t->rows.data());
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_LoadTimeline)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_OverlapBands(benchmark::State& state) {
  Fixture& f = Stored();
  auto store = braid::Store::Open(f.path, /*read_only=*/true);
  if (!store.ok()) Fixture::Die(store.status());
  auto t = braid::view::LoadTimeline(**store, f.run, {});
  if (!t.ok()) Fixture::Die(t.status());
  for (auto _ : state) {
    const auto bands = braid::view::ComputeOverlapBands(*t);
    benchmark::DoNotOptimize(bands.data());
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_OverlapBands)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_OpenRun(benchmark::State& state) {
  Fixture& f = Stored();
  size_t events = 0;
  for (auto _ : state) {
    auto store = braid::Store::Open(f.path, /*read_only=*/true);
    if (!store.ok()) Fixture::Die(store.status());
    auto loaded = braid::view::LoadRunForView(**store, f.run, {});
    if (!loaded.ok()) Fixture::Die(loaded.status());
    benchmark::DoNotOptimize(loaded->bands.data());
    events = loaded->timeline->event_count;
  }
  state.counters["events"] = double(events);
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_OpenRun)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_ShowRun(benchmark::State& state) {
  Fixture& f = Stored();
  double ticks = 0, first_paint_ms = 0;
  for (auto _ : state) {
    // A fresh window each time: one run held, as when a run is first opened
    // (opening another over a shown run holds both until the new one shows).
    state.PauseTiming();
    auto w = std::make_unique<braid::view::MainWindow>();
    w->resize(1600, 1000);
    if (braid::Status s = w->OpenStore(f.path); !s.ok()) Fixture::Die(s);
    int turns = 0;
    QTimer tick;
    tick.setInterval(10);
    QObject::connect(&tick, &QTimer::timeout, [&turns] { ++turns; });
    tick.start();
    state.ResumeTiming();
    if (braid::Status s = w->ShowRun(f.run); !s.ok()) Fixture::Die(s);
    state.PauseTiming();
    tick.stop();
    ticks += turns;
    braid::view::TimelineWidget* t = w->timeline();
    QImage image(QSize(1600, 1000), QImage::Format_ARGB32_Premultiplied);
    t->resize(1600, 1000);
    QElapsedTimer paint;
    paint.start();
    {
      QPainter p(&image);
      t->render(&p);
    }
    first_paint_ms += double(paint.nsecsElapsed()) / 1e6;
    w.reset();
    state.ResumeTiming();
  }
  state.counters["ui_ticks"] = ticks / double(state.iterations());
  state.counters["first_paint_ms"] = first_paint_ms / double(state.iterations());
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_ShowRun)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_Repaint(benchmark::State& state) {
  Fixture& f = Stored();
  auto store = braid::Store::Open(f.path, true);
  if (!store.ok()) Fixture::Die(store.status());
  auto t = braid::view::LoadTimeline(**store, f.run);
  if (!t.ok()) Fixture::Die(t.status());
  braid::view::TimelineWidget w;
  w.resize(1600, 1000);
  w.SetTimeline(std::make_shared<braid::view::Timeline>(std::move(*t)));
  const double mid = 12.5 * double(kIterationNs);
  switch (state.range(0)) {
    case 0:
      w.FitAll();
      break;
    case 1:
      w.SetView({12.0 * kIterationNs, 13.0 * kIterationNs});
      break;
    default:
      w.SetView({mid, mid + 100'000});
      break;
  }
  QImage image(w.size(), QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    QPainter p(&image);
    w.render(&p);
  }
  state.counters["ms_per_px"] = w.view().span() / w.plot_width() / 1e6;
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_Repaint)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
