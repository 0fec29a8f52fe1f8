// Loading a run for the viewer off the UI thread. The events are streamed
// from the store in batches (Store::ScanEvents) straight into the timeline's
// rows, so a 10-million-event run is never held twice; between batches the
// load reports progress and honours a cancel flag.
//
// Threading: a load reads the ranks in parts on up to `threads` threads:
// the calling thread with `store`, each other one with its own read-only
// Store opened on store.path() (a Store is used from one thread at a time).
// Give each loading thread its own `store`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "braid/status.h"
#include "braid/store.h"
#include "braid/view/overlap_band.h"
#include "braid/view/run_summary.h"
#include "braid/view/timeline.h"

namespace braid::view {

struct LoadControl {
  // After each batch the calling thread reads, and once at the end, on that
  // thread: events read so far by all threads and the count the run's
  // record claims (a damaged record is caught at the end).
  std::function<void(int64_t read, int64_t total)> progress;
  // Set from any thread to stop the load at the next batch.
  const std::atomic<bool>* cancel = nullptr;
  size_t batch = size_t(1) << 16;
  // Threads that read and lay out ranks at once (each a contiguous range of
  // ranks, with its own connection); 0: one per core, at most 8. The result
  // does not depend on it.
  int threads = 0;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// What a cancelled load returns: Unavailable, "loading run 7 cancelled".
Status LoadCancelled(int64_t run);

// Reads run `run` as LoadTimeline(store, run) does, streaming. NotFound
// names a missing run; a damaged store gives its one-line error. The events
// come without their details (Timeline::without_details()): a third less to
// read at 10M events, and the details panel shows one event at a time.
Result<Timeline> LoadTimeline(const Store& store, int64_t run, const LoadControl& control);

// Event `ref` of `t` with every stored field: as it is when `t` has its
// details, else read from `store` (one key lookup of t.run's events), which
// must be the store `t` was loaded from (Invalid otherwise: another store's
// run of the same id is another run). @pre ref names an event of t.
Result<Event> EventWithDetails(const Store& store, const Timeline& t, EventRef ref);

// Everything the window shows of a run, computed where the load runs: the
// timeline, its overlap bands and the run's summary line.
struct LoadedRun {
  std::shared_ptr<const Timeline> timeline;
  std::vector<RankBand> bands;
  RunSummary summary;
};
Result<LoadedRun> LoadRunForView(const Store& store, int64_t run, const LoadControl& control);

}  // namespace braid::view
