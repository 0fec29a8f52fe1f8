#include "braid/view/run_load.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <future>
#include <map>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "braid/stored_text.h"
#include "timeline_builder.h"

namespace braid::view {

Status LoadCancelled(int64_t run) { return Status::Unavailable("loading run " + std::to_string(run) + " cancelled"); }

namespace {

// One thread's share of a load: the ranks in `ranks` ([first, second); all
// of them when unset), laid out, and their bands.
struct Part {
  std::optional<std::pair<int, int>> ranks;
  const Store* store = nullptr;
  Timeline timeline;
  std::vector<RankBand> bands;
  int64_t seen = 0;
  Status status;
  bool stopped = false;  // ended because another part failed: its status says nothing
};

// What the parts share while they run.
struct Shared {
  std::atomic<int64_t> read{0};
  std::atomic<bool> failed{false};
};

bool InPart(const Part& p, int rank) { return !p.ranks || (rank >= p.ranks->first && rank < p.ranks->second); }

// Reads one part's rows straight into its own builder (each a DrawnEvent,
// its name an index: no string per event), then computes its ranks' bands: a rank's band
// reads that rank's rows only, so the parts need each other for nothing.
// `reports`: this part runs on the caller's thread and calls progress.
Status LoadPart(int64_t run, const std::vector<LaneInfo>& lanes, int iterations, int64_t most_events,
                const LoadControl& control, int64_t total, bool reports, bool with_bands, Shared& shared, Part& part) {
  try {
    std::vector<LaneInfo> own;
    for (const LaneInfo& l : lanes) {
      if (InPart(part, l.rank)) own.push_back(l);
    }
    TimelineBuilder b(own);
    b.ExpectIterations(iterations, most_events);
    Store::EventScan scan;
    scan.batch = control.batch;
    scan.ranks = part.ranks;
    // The scan's name indices to the timeline's: the same in practice (both
    // tables grow in the order names are first seen), but not by contract.
    std::vector<int32_t> to_timeline;
    // Without the details: EventWithDetails reads them for the event shown.
    auto visit = [&](std::span<const Store::DrawnEventRow> batch, const std::vector<std::string>& names) {
      if (control.cancelled()) return LoadCancelled(run);
      if (shared.failed.load(std::memory_order_relaxed)) {
        part.stopped = true;
        return Status::Unavailable("stopped");
      }
      for (size_t i = to_timeline.size(); i < names.size(); ++i) to_timeline.push_back(b.names().Intern(names[i]));
      for (const Store::DrawnEventRow& row : batch) {
        b.Add(row.rank, row.lane,
              DrawnEvent{row.start_ns, row.end_ns, row.correlation, row.iteration, to_timeline[size_t(row.name)],
                         row.kind});
      }
      part.seen += int64_t(batch.size());
      const int64_t read =
          shared.read.fetch_add(int64_t(batch.size()), std::memory_order_relaxed) + int64_t(batch.size());
      if (reports && control.progress) control.progress(read, total);
      return Status::Ok();
    };
    BRAID_RETURN_IF_ERROR(part.store->ScanDrawnEvents(run, scan, visit));
    part.timeline = std::move(b).Finish();
    if (!with_bands) return Status::Ok();
    for (int rank : part.timeline.ranks) {
      if (control.cancelled()) return LoadCancelled(run);
      part.bands.push_back(ComputeRankBand(part.timeline, rank));
    }
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status::Internal("out of memory loading run " + std::to_string(run));
  }
}

// Splits the ranks [lo, hi] into at most `n` contiguous ranges.
std::vector<std::pair<int, int>> SplitRanks(int lo, int hi, int n) {
  const int64_t count = int64_t(hi) - lo + 1;
  n = int(std::clamp<int64_t>(n, 1, count));
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < n; ++i) {
    out.emplace_back(int(lo + count * i / n), int(lo + count * (i + 1) / n));
  }
  return out;
}

// The parts of a load: one per thread, each but the first with its own
// read-only connection. A connection that cannot be opened, or that does not
// see the run as the caller's does, leaves the load on the caller's alone.
Result<std::vector<Part>> PlanParts(const Store& store, int64_t run, const StoredRun& meta,
                                    const std::vector<LaneInfo>& lanes, const LoadControl& control,
                                    std::vector<std::unique_ptr<Store>>& own_stores) {
  std::vector<Part> parts(1);
  parts[0].store = &store;
  BRAID_ASSIGN_OR_RETURN(auto range, store.GetEventRankRange(run));
  for (const LaneInfo& l : lanes) {  // lanes without events still get rows
    range = range ? std::pair<int, int>(std::min(range->first, l.rank), std::max(range->second, l.rank))
                  : std::pair<int, int>(l.rank, l.rank);
  }
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = control.threads > 0 ? control.threads : std::min(cores, 8);
  if (!range || threads == 1 || range->first == INT_MIN || range->second == INT_MAX) return parts;
  const std::vector<std::pair<int, int>> split = SplitRanks(range->first, range->second, threads);
  if (split.size() == 1) return parts;
  for (size_t i = 1; i < split.size(); ++i) {
    Result<std::unique_ptr<Store>> other = Store::Open(store.path(), /*read_only=*/true);
    if (!other.ok()) return parts;
    Result<StoredRun> seen = (*other)->GetRun(run);
    if (!seen.ok() || seen->event_count != meta.event_count) return parts;
    own_stores.push_back(std::move(*other));
  }
  parts.resize(split.size());
  for (size_t i = 0; i < split.size(); ++i) {
    parts[i].ranks = split[i];
    parts[i].store = i == 0 ? &store : own_stores[i - 1].get();
  }
  return parts;
}

// Gives `x`'s rows the merged timeline's name indices. The parts see the
// same names in the same order in practice, so this rarely rewrites a row.
void RenameInto(NameTable& merged, Timeline& x) {
  std::vector<int32_t> to_merged;
  bool same = true;
  for (const std::string& name : x.names.names()) {
    to_merged.push_back(merged.Intern(name));
    same = same && to_merged.back() == int32_t(to_merged.size() - 1);
  }
  if (same) return;
  for (TimelineRow& row : x.rows) {
    for (DrawnEvent& e : row.events) e.name = to_merged[size_t(e.name)];
  }
}

// The parts' rows in rank order, their iterations and names merged.
Timeline MergeParts(std::vector<Part>& parts, int64_t run) {
  Timeline t;
  t.run = run;
  t.origin_ns = INT64_MAX;
  t.end_ns = INT64_MIN;
  std::map<int, IterationSpan> spans;
  for (Part& p : parts) {
    Timeline& x = p.timeline;
    RenameInto(t.names, x);
    for (TimelineRow& row : x.rows) t.rows.push_back(std::move(row));
    t.ranks.insert(t.ranks.end(), x.ranks.begin(), x.ranks.end());
    for (const IterationSpan& s : x.iterations) {
      auto [it, added] = spans.try_emplace(s.iteration, s);
      if (!added) {
        it->second.begin_ns = std::min(it->second.begin_ns, s.begin_ns);
        it->second.end_ns = std::max(it->second.end_ns, s.end_ns);
      }
    }
    if (x.event_count > 0) {
      t.origin_ns = std::min(t.origin_ns, x.origin_ns);
      t.end_ns = std::max(t.end_ns, x.end_ns);
    }
    t.event_count += x.event_count;
  }
  if (t.event_count == 0) t.origin_ns = t.end_ns = 0;
  for (const auto& [iteration, s] : spans) t.iterations.push_back(s);
  return t;
}

struct Loaded {
  Timeline timeline;
  std::vector<RankBand> bands;
};

Result<Loaded> LoadInParts(const Store& store, int64_t run, const LoadControl& control, bool with_bands) {
  if (control.cancelled()) return LoadCancelled(run);
  BRAID_ASSIGN_OR_RETURN(StoredRun meta, store.GetRun(run));
  BRAID_ASSIGN_OR_RETURN(auto lanes, store.LoadLanes(run));
  // The record's count is free to read, where counting the rows
  // (GetEventExtent) walks the run's index once more; the scan checks it.
  const int64_t total = meta.event_count;
  if (control.progress) control.progress(0, total);
  std::vector<std::unique_ptr<Store>> own_stores;
  BRAID_ASSIGN_OR_RETURN(std::vector<Part> parts, PlanParts(store, run, meta, lanes, control, own_stores));

  // What a row may reserve: the record's count, but never more events than
  // the file can hold (a stored event takes more than 16 bytes), so that a
  // damaged record does not become an allocation.
  std::error_code ec;
  const uintmax_t file_bytes = std::filesystem::file_size(store.path(), ec);
  const int64_t most_events = ec ? 0 : std::min<int64_t>(total, int64_t(file_bytes / 16));

  Shared shared;
  auto load = [&](size_t i) {
    Part& p = parts[i];
    p.status = LoadPart(run, lanes, meta.meta.iterations, most_events, control, total, i == 0, with_bands, shared, p);
    if (!p.status.ok()) shared.failed.store(true, std::memory_order_relaxed);
  };
  // A thread that cannot be started (std::async throws std::system_error,
  // e.g. under a process limit) must not escape as an exception: the parts
  // not started run here after the first, so the load only takes longer.
  // `others` has its room first, so that a started part is always kept.
  std::vector<std::future<void>> others;
  others.reserve(parts.size());
  size_t started = 1;
  try {
    for (; started < parts.size(); ++started) others.push_back(std::async(std::launch::async, load, started));
  } catch (const std::system_error&) {
    // parts [started, size) run below, on this thread
  }
  load(0);
  for (size_t i = started; i < parts.size(); ++i) load(i);
  for (auto& f : others) f.get();

  if (control.cancelled()) return LoadCancelled(run);
  for (const Part& p : parts) {
    if (!p.status.ok() && !p.stopped) return p.status;
  }
  int64_t seen = 0;
  for (const Part& p : parts) seen += p.seen;
  // Each part's scan is a range of ranks: only their sum can be counted
  // (a single unrestricted scan counted itself).
  if (parts.size() > 1 && seen != meta.event_count) {
    return DamagedStore("run " + std::to_string(run) + " of " + store.path(),
                        "event_count " + std::to_string(meta.event_count) + " but " + std::to_string(seen) + " events");
  }
  // The other threads' last batches came after the caller's last report.
  if (parts.size() > 1 && control.progress) control.progress(seen, total);
  Loaded out;
  for (Part& p : parts) {
    for (RankBand& band : p.bands) out.bands.push_back(std::move(band));
  }
  out.timeline = MergeParts(parts, run);
  out.timeline.store_path = store.path();  // which also says its events lack their details
  return out;
}

}  // namespace

Result<Timeline> LoadTimeline(const Store& store, int64_t run, const LoadControl& control) {
  BRAID_ASSIGN_OR_RETURN(Loaded loaded, LoadInParts(store, run, control, /*with_bands=*/false));
  return std::move(loaded.timeline);
}

Result<Event> EventWithDetails(const Store& store, const Timeline& t, EventRef ref) {
  const TimelineRow& row = t.rows[ref.row];
  const DrawnEvent& e = row.events[ref.index];
  if (!t.without_details()) return EventOf(t, ref);
  if (store.path() != t.store_path) {
    return Status::Invalid("run " + std::to_string(t.run) + " was loaded from " + t.store_path + ", not " +
                           store.path());
  }
  // A row holds its lane's events by start, ties in stored order: the
  // event's ordinal among those starting when it does.
  int64_t ordinal = 0;
  for (size_t i = ref.index; i > 0 && row.events[i - 1].start_ns == e.start_ns; --i) ++ordinal;
  return store.GetEvent(t.run, row.rank, row.lane, e.start_ns, ordinal);
}

Result<LoadedRun> LoadRunForView(const Store& store, int64_t run, const LoadControl& control) {
  // The summary first: it is a few rows, and a damaged one fails before the
  // events are read.
  BRAID_ASSIGN_OR_RETURN(StoredRun meta, store.GetRun(run));
  BRAID_ASSIGN_OR_RETURN(auto rows, store.LoadMetrics(run));
  LoadedRun out;
  BRAID_ASSIGN_OR_RETURN(out.summary, SummarizeRun(meta, rows));
  BRAID_ASSIGN_OR_RETURN(Loaded loaded, LoadInParts(store, run, control, /*with_bands=*/true));
  out.bands = std::move(loaded.bands);
  out.timeline = std::make_shared<const Timeline>(std::move(loaded.timeline));
  return out;
}

}  // namespace braid::view
