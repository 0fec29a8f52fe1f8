// The run store: one SQLite file that every run lands in (measured or
// imported), read by reports, the tuner and braid-view. Schema: db/README.md.
//
// A run is written in one transaction: it is visible to readers only once it
// is complete, and a writer killed mid-run leaves nothing of it behind.
// Readers in other connections or processes read while a writer writes (WAL).
//
// Threading: a Store wraps one SQLite connection and requires external
// synchronization; use it from one thread at a time. Open one Store per
// thread (or process) for concurrency.
//
// Errors are values: every call returns a Status or a Result; nothing throws.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "braid/event.h"
#include "braid/status.h"
#include "braid/workload.h"

struct sqlite3;

namespace braid {

// The schema this build writes; PRAGMA user_version of a current store.
inline constexpr int kStoreSchemaVersion = 3;

// What the caller knows about a run. JSON fields are stored as given (they
// must parse; empty means "{}").
struct RunMeta {
  std::string source = "measured";  // "measured" | "imported"
  std::string backend;              // "sim" | "cpu" | "cuda" | importer name
  std::string topology;
  // Imported traces have no GEMM workload: then only workload.tp (the world
  // size) is stored, and op / dtype read back as absent.
  bool has_workload = true;
  Workload workload;
  std::string config_json;
  std::string host;
  std::string braid_version;
  std::string git_revision;
  int iterations = 0;
  int warmup = 0;
  std::string notes_json;
};

struct LaneInfo {
  int rank = 0;
  int lane = 0;
  std::string name;
  std::string kind;  // "compute" | "comm" | anything an importer names
};

// One metric of one rank in one iteration (name: MetricName(), e.g.
// "makespan_ns"). braid/metric_rows.h builds them from RunMetrics.
struct MetricRow {
  int iteration = 0;
  int rank = 0;
  std::string name;
  double value = 0;
};

// What GetEventExtent finds: zeros when there are no events.
struct EventExtent {
  int64_t count = 0;
  int64_t first_start_ns = 0;
  int first_iteration = 0, last_iteration = 0;
};

struct StoredRun {
  int64_t id = 0;
  std::string created_at;  // ISO 8601 UTC, "2024-05-01T12:00:00.123Z"
  std::string status;      // "complete"
  int64_t event_count = 0;
  RunMeta meta;
};

// A tuner session: one search over configs for one workload key.
struct SessionInfo {
  std::string workload_key;  // e.g. "llama3-70b prefill seq=4096" or Workload::Describe()
  std::string topology;
  std::string backend;
  std::string strategy;  // "exhaustive" | "random" | "halving" | "guided"
  int budget = 0;
  std::string options_json;
};

struct StoredSession {
  int64_t id = 0;
  std::string created_at;
  std::string status;  // "running" when created; SetSessionStatus changes it
  SessionInfo info;
};

struct TrialInfo {
  std::optional<int64_t> run;  // the run the trial measured, if any
  std::string config_json;
  std::string status = "ok";       // "ok" | "invalid" | "failed" | ...
  std::optional<int64_t> time_ns;  // the trial's figure of merit, if measured
  // What was measured (e.g. "fc2|chunked chunks=4|r0"). When set, it is
  // unique within the session: a second trial with the same key is refused.
  std::string key;
  std::string samples_json;  // per-iteration times, "[…]"; empty means "[]"
};

struct StoredTrial {
  int64_t id = 0;
  int64_t session = 0;
  std::string created_at;
  TrialInfo trial;
};

// Refuses a store that cannot take a new run (not a Braid store, a newer
// schema, an unwritable or missing directory) without creating or changing
// anything: what run, tune and import check before anything is measured
// or created. Messages name the field `db`. (db/src/store_target.cc)
[[nodiscard]] Status CheckStoreWritable(const std::string& path);

class Store {
 public:
  // Opens the store at `path`, creating it when absent (unless read_only)
  // and upgrading an older schema (read-write only). Refused with
  // Status::Invalid naming the file, and without touching it: a directory
  // that does not exist or is not writable, a file that is not SQLite, an
  // SQLite file of another application, a store of a newer Braid. A missing
  // file opened read-only is NotFound.
  static Result<std::unique_ptr<Store>> Open(const std::string& path, bool read_only = false);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }

  // Writes a whole run atomically and returns its id. Events may come in any
  // order; they are stored sorted by (rank, lane, start_ns), ties in input
  // order. Rejects (Invalid, nothing written) a bad source, JSON that does
  // not parse, an event that ends before it starts, duplicate lanes or
  // duplicate metric rows.
  Result<int64_t> WriteRun(const RunMeta& meta, const std::vector<LaneInfo>& lanes, const std::vector<Event>& events,
                           const std::vector<MetricRow>& metrics);

  // A run written as it is produced, in one transaction like WriteRun:
  // next() gives parts (their lanes and events; nullptr when there are no
  // more), each stored before the next is asked for, so that a producer on
  // other threads (the Kineto import's workers) runs while the store writes;
  // then finish() gives the run's row and metrics, which may depend on every
  // part (an import's figures). An error from either, or a bad part, rolls
  // everything back. A part's events are stored like WriteRun's; lanes and
  // (rank, lane, start_ns, seq) keys must not repeat across parts.
  struct RunPart {
    std::vector<LaneInfo> lanes;
    std::vector<Event> events;
  };
  struct RunEnd {
    RunMeta meta;
    std::vector<MetricRow> metrics;
  };
  Result<int64_t> WriteRunInParts(const std::function<Result<const RunPart*>()>& next,
                                  const std::function<Result<RunEnd>()>& finish);

  // The same, pushed by a producer that runs on the caller's thread (a
  // streamed `braid run` hands each iteration over as it is done): BeginRun
  // opens the transaction; Add stores a part; Finish writes the run's row
  // and metrics and commits. An error, or a writer destroyed before Finish,
  // rolls everything back. The writer holds the store's write transaction:
  // use the Store for nothing else until it is finished or destroyed.
  class RunWriter {
   public:
    ~RunWriter();
    RunWriter(const RunWriter&) = delete;
    RunWriter& operator=(const RunWriter&) = delete;
    Status Add(const RunPart& part);
    Result<int64_t> Finish(const RunEnd& end);

   private:
    friend class Store;
    struct Open;
    RunWriter(sqlite3* db, std::unique_ptr<Open> open);
    Status Fail(Status s);
    sqlite3* db_;
    std::unique_ptr<Open> open_;  // null once finished or failed
  };
  Result<std::unique_ptr<RunWriter>> BeginRun();

  Result<std::vector<StoredRun>> ListRuns() const;           // complete runs, id order
  Result<StoredRun> GetRun(int64_t id) const;                // NotFound: "no run 42 in FILE"
  Result<std::vector<Event>> LoadEvents(int64_t run) const;  // by rank, lane, start_ns
  // The run's events in LoadEvents' order, streamed: `visit` gets at most
  // `batch` events at a time (a buffer reused between calls, so memory does
  // not grow with the run; the visitor may move the events out) and ends the
  // scan early by returning an error, which ScanEvents returns (a cancelled
  // load). With `iteration`, only that iteration's events; with `ranks`,
  // only ranks in [first, second) (a range of the key: the scan reads no
  // other rank's rows). A whole scan checks the rows against the run's
  // stored count at the end, as LoadEvents does.
  // `details` false: the scan reads what a timeline draws (rank, lane,
  // times, iteration, kind, name, correlation) and leaves bytes, flops,
  // chunk, step and peer at Event's defaults — five of the row's thirteen
  // columns, about a third of a 10M-event viewer load. GetEvent reads one
  // event whole.
  struct EventScan {
    std::optional<int> iteration;
    size_t batch = size_t(1) << 16;
    std::optional<std::pair<int, int>> ranks;
    bool details = true;
  };
  Status ScanEvents(int64_t run, const EventScan& scan, const std::function<Status(std::span<Event>)>& visit) const;
  // What a timeline draws of one event, as ScanDrawnEvents hands it over:
  // `name` is an index into the scan's name table (the run's distinct
  // names, in the order first seen), so no row carries its own string.
  struct DrawnEventRow {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    int64_t correlation = -1;
    int rank = 0;
    int lane = 0;
    int iteration = 0;
    EventKind kind = EventKind::kCompute;
    int32_t name = 0;
  };
  // ScanEvents' rows, order and checks (a damaged row is the same one-line
  // error), without the details (`scan.details` is ignored) and without a
  // string per event: names are looked up once per distinct name. `names`
  // only grows during the scan (a batch's rows index the names seen so far).
  // At 10M events a string per event was a heap allocation each (names past
  // 15 bytes) and a third of the viewer's resident memory.
  Status ScanDrawnEvents(
      int64_t run, const EventScan& scan,
      const std::function<Status(std::span<const DrawnEventRow>, const std::vector<std::string>& names)>& visit) const;
  // The event of `run` that is the `ordinal`-th (from 0, in stored order) of
  // those on `rank`'s `lane` starting at `start_ns`: one key lookup. A
  // timeline row holds a lane's events in that order, so an event's ordinal
  // is the count of events before it in its row with the same start.
  // NotFound when there is no such event.
  Result<Event> GetEvent(int64_t run, int rank, int lane, int64_t start_ns, int64_t ordinal) const;
  // The lowest and highest rank that has events in `run` (two index
  // lookups, no scan); nullopt when the run has no events.
  Result<std::optional<std::pair<int, int>>> GetEventRankRange(int64_t run) const;
  // Count, first start and iteration range of a run's events (or of one
  // iteration's), without reading them.
  Result<EventExtent> GetEventExtent(int64_t run, std::optional<int> iteration = std::nullopt) const;
  Result<std::vector<LaneInfo>> LoadLanes(int64_t run) const;     // by rank, lane
  Result<std::vector<MetricRow>> LoadMetrics(int64_t run) const;  // by iteration, rank, name

  // Tuning sessions and their trials.
  Result<int64_t> CreateSession(const SessionInfo& info);
  Status SetSessionStatus(int64_t session, const std::string& status);
  Result<StoredSession> GetSession(int64_t id) const;       // NotFound when absent
  Result<std::vector<StoredSession>> ListSessions() const;  // id order
  Result<int64_t> AddTrial(int64_t session, const TrialInfo& trial);
  Result<std::vector<StoredTrial>> ListTrials(int64_t session) const;  // id order
  // Writes a run and the trial that measured it (trial.run is set to the new
  // run) in one transaction: a process killed part-way leaves neither, so a
  // resumed session finds either the whole trial or nothing. A key already
  // in the session is refused with nothing written.
  struct TrialIds {
    int64_t trial = 0, run = 0;
  };
  Result<TrialIds> AddTrialWithRun(int64_t session, TrialInfo trial, const RunMeta& meta,
                                   const std::vector<LaneInfo>& lanes, const std::vector<Event>& events,
                                   const std::vector<MetricRow>& metrics);

  // What a commit risks on a power cut: this connection's PRAGMA
  // synchronous (0 off, 1 normal, 2 full). A writable store is at 1 once
  // Open returns, a new one too (it is made at 0).
  Result<int> SyncLevel() const;

 private:
  Store(sqlite3* db, std::string path, bool read_only);
  Status CheckWritable() const;
  Status CheckRunExists(int64_t run) const;

  sqlite3* db_;  // owned; closed by the destructor
  std::string path_;
  bool read_only_;
};

}  // namespace braid
