#include "braid/view/run_load.h"

#include <algorithm>
#include <future>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "timeline_builder.h"

namespace braid::view {

Status LoadCancelled(int64_t run) { return Status::Unavailable("loading run " + std::to_string(run) + " cancelled"); }

namespace {

// The ranks' bands on up to 8 threads (rank i on thread i mod n): at 10M
// events they take seconds on one core. An exception in a thread reaches the
// caller through its future.
std::vector<RankBand> BandsInParallel(const Timeline& t) {
  const size_t n = t.ranks.size();
  std::vector<RankBand> bands(n);
  const size_t threads = std::max<size_t>(1, std::min<size_t>({std::thread::hardware_concurrency(), 8, n}));
  auto part = [&](size_t first) {
    for (size_t i = first; i < n; i += threads) bands[i] = ComputeRankBand(t, t.ranks[i]);
  };
  std::vector<std::future<void>> others;
  for (size_t k = 1; k < threads; ++k) others.push_back(std::async(std::launch::async, part, k));
  part(0);
  for (auto& f : others) f.get();
  return bands;
}

}  // namespace

Result<Timeline> LoadTimeline(const Store& store, int64_t run, const LoadControl& control) {
  if (control.cancelled()) return LoadCancelled(run);
  BRAID_ASSIGN_OR_RETURN(StoredRun meta, store.GetRun(run));
  BRAID_ASSIGN_OR_RETURN(auto lanes, store.LoadLanes(run));
  // The record's count is free to read, where counting the rows
  // (GetEventExtent) walks the run's index once more; the scan checks it.
  const int64_t total = meta.event_count;
  if (control.progress) control.progress(0, total);
  TimelineBuilder b(lanes);
  int64_t read = 0;
  Store::EventScan scan;
  scan.batch = control.batch;
  BRAID_RETURN_IF_ERROR(store.ScanEvents(run, scan, [&](std::span<const Event> batch) {
    if (control.cancelled()) return LoadCancelled(run);
    for (const Event& e : batch) b.Add(e);
    read += int64_t(batch.size());
    if (control.progress) control.progress(read, total);
    return Status::Ok();
  }));
  Timeline t = std::move(b).Finish();
  t.run = run;
  return t;
}

Result<LoadedRun> LoadRunForView(const Store& store, int64_t run, const LoadControl& control) {
  // The summary first: it is a few rows, and a damaged one fails before the
  // events are read.
  BRAID_ASSIGN_OR_RETURN(StoredRun meta, store.GetRun(run));
  BRAID_ASSIGN_OR_RETURN(auto rows, store.LoadMetrics(run));
  LoadedRun out;
  BRAID_ASSIGN_OR_RETURN(out.summary, SummarizeRun(meta, rows));
  BRAID_ASSIGN_OR_RETURN(Timeline t, LoadTimeline(store, run, control));
  if (control.cancelled()) return LoadCancelled(run);
  out.bands = BandsInParallel(t);
  out.timeline = std::make_shared<const Timeline>(std::move(t));
  return out;
}

}  // namespace braid::view
