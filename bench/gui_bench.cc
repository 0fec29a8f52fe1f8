// braid-view at scale (gui/): a stored 1,000,000-event run.
//
//   BM_OpenRun      Store::Open (read-only) + LoadTimeline + overlap bands:
//                   what the viewer does before it can draw; goal < 2 s
//   BM_ShowRun      the window's whole "open this run" (the above plus the
//                   run's metric rows and title), on an open store
//   BM_Repaint/Z    one offscreen repaint of a 1600x1000 timeline widget at
//                   zoom Z: 0 = the whole run (25 iterations), 1 = one
//                   iteration (50 ms), 2 = 100 µs; goal < 16 ms each
//
// The run (bench/ring_run.h, shared with the store benchmark: 8 ranks x
// (compute, comm) lanes x 25 iterations x 2500 steps, comm overlapping compute
// as a ring does) is written with Store::WriteRun into a scratch directory
// under $TMPDIR (or /tmp) first.
// Run: QT_QPA_PLATFORM=offscreen build/release/bench/braid_gui_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/store.h"
#include "braid/view/main_window.h"
#include "braid/view/overlap_band.h"
#include "braid/view/timeline.h"
#include "braid/view/timeline_widget.h"
#include "ring_run.h"

namespace {

namespace fs = std::filesystem;

using braid::bench::kIterationNs;

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("braid_gui_bench_" + std::to_string(getpid()));
  std::string path = (dir / "runs.db").string();
  int64_t run = 0;

  Fixture() {
    fs::create_directories(dir);
    auto store = braid::Store::Open(path);
    if (!store.ok()) Die(store.status());
    const std::vector<braid::Event> events = braid::bench::MakeRingRun();
    auto id = (*store)->WriteRun(braid::bench::RingRunMeta(), braid::bench::RingRunLanes(), events,
                                 braid::MetricRowsOf(braid::ComputeRunMetrics(events)));
    if (!id.ok()) Die(id.status());
    run = *id;
  }
  ~Fixture() { fs::remove_all(dir); }
  static void Die(const braid::Status& s) {
    std::fprintf(stderr, "braid_gui_bench: %s\n", s.message().c_str());
    std::exit(1);
  }
};

Fixture& Stored() {
  static Fixture f;
  return f;
}

void BM_OpenRun(benchmark::State& state) {
  Fixture& f = Stored();
  size_t events = 0;
  for (auto _ : state) {
    auto store = braid::Store::Open(f.path, /*read_only=*/true);
    if (!store.ok()) Fixture::Die(store.status());
    auto t = braid::view::LoadTimeline(**store, f.run);
    if (!t.ok()) Fixture::Die(t.status());
    const auto bands = braid::view::ComputeOverlapBands(*t);
    benchmark::DoNotOptimize(bands.data());
    events = t->event_count;
  }
  state.counters["events"] = double(events);
}
BENCHMARK(BM_OpenRun)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_ShowRun(benchmark::State& state) {
  Fixture& f = Stored();
  braid::view::MainWindow w;
  if (braid::Status s = w.OpenStore(f.path); !s.ok()) Fixture::Die(s);
  for (auto _ : state) {
    if (braid::Status s = w.ShowRun(f.run); !s.ok()) Fixture::Die(s);
  }
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
