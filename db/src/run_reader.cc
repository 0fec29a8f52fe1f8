// Queries over complete runs: listing, metadata, events, lanes, metrics.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <span>
#include <unordered_map>

#include "braid/store.h"
#include "braid/stored_text.h"
#include "statement.h"

namespace braid {
namespace {

constexpr const char* kRunColumns =
    "SELECT id, created_at, status, event_count, source, backend, topology, op, m, n, k, dtype, tp,"
    " config_json, host, braid_version, git_revision, iterations, warmup, notes_json FROM runs"
    " WHERE status = 'complete'";

Result<StoredRun> ReadRun(const db::Statement& st, const std::string& path) {
  StoredRun r;
  r.id = st.Int(0);
  r.created_at = st.Text(1);
  r.status = st.Text(2);
  r.event_count = st.Int(3);
  RunMeta& m = r.meta;
  m.source = st.Text(4);
  m.backend = st.Text(5);
  m.topology = st.Text(6);
  const std::string op = st.Text(7);
  const std::string dtype = st.Text(11);
  m.has_workload = !(op == "-" && dtype == "-");
  Result<Op> parsed_op = m.has_workload ? ParseOp(op) : Result<Op>(Op::kGemmRs);
  Result<DType> parsed_dtype = m.has_workload ? ParseDType(dtype) : Result<DType>(DType::kFp32);
  if (!parsed_op.ok() || !parsed_dtype.ok()) {
    return DamagedStore("run " + std::to_string(r.id) + " of " + path,
                        "an unknown op or dtype ('" + OneLine(op) + "', '" + OneLine(dtype) + "')");
  }
  m.workload.op = *parsed_op;
  m.workload.m = st.Int(8);
  m.workload.n = st.Int(9);
  m.workload.k = st.Int(10);
  m.workload.dtype = *parsed_dtype;
  m.workload.tp = int(st.Int(12));
  m.config_json = st.Text(13);
  m.host = st.Text(14);
  m.braid_version = st.Text(15);
  m.git_revision = st.Text(16);
  m.iterations = int(st.Int(17));
  m.warmup = int(st.Int(18));
  m.notes_json = st.Text(19);
  return r;
}

// strings.id -> text, looked up once per distinct id.
class NameCache {
 public:
  explicit NameCache(db::Statement lookup) : lookup_(std::move(lookup)) {}
  Result<const std::string*> Get(int64_t id) {
    // The last id first: a lane's events mostly repeat a few names, and a
    // hash lookup per row was a tenth of reading a 10M-event run.
    if (id == last_id_ && last_) return last_;
    if (auto it = names_.find(id); it != names_.end()) {
      last_id_ = id;
      return last_ = &it->second;
    }
    BRAID_ASSIGN_OR_RETURN(bool row, lookup_.BindInt(1, id).Step());
    if (!row) return Status::Invalid("names string " + std::to_string(id) + ", which the store does not have");
    const std::string* text = &names_.emplace(id, lookup_.Text(0)).first->second;
    BRAID_RETURN_IF_ERROR(lookup_.Reset());
    last_id_ = id;
    return last_ = text;
  }

 private:
  int64_t last_id_ = 0;
  const std::string* last_ = nullptr;  // names_ never moves its values
  db::Statement lookup_;
  std::unordered_map<int64_t, std::string> names_;
};

Result<NameCache> MakeNameCache(sqlite3* db) {
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db, "SELECT text FROM strings WHERE id = ?1"));
  return NameCache(std::move(st));
}

// strings.id -> index into a scan's own table of distinct names, for
// ScanDrawnEvents: a row costs an array lookup, not a string copy. Ids are
// the strings table's rowids, small and dense in a store, so most are
// looked up in an array; a stray large one (a damaged or odd store) in a
// hash map, so that it never becomes an allocation.
class NameIndex {
 public:
  explicit NameIndex(NameCache texts) : texts_(std::move(texts)) {}

  Result<int32_t> Get(int64_t id) {
    if (id == last_id_ && last_ >= 0) return last_;
    int32_t* slot = nullptr;
    if (id >= 0 && id < kDenseIds) {
      if (size_t(id) >= dense_.size()) dense_.resize(size_t(id) + 1, -1);
      slot = &dense_[size_t(id)];
    } else {
      slot = &sparse_.try_emplace(id, -1).first->second;
    }
    if (*slot < 0) {
      BRAID_ASSIGN_OR_RETURN(const std::string* text, texts_.Get(id));
      *slot = int32_t(names_.size());
      names_.push_back(*text);
    }
    last_id_ = id;
    return last_ = *slot;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  static constexpr int64_t kDenseIds = int64_t(1) << 20;
  NameCache texts_;
  std::vector<int32_t> dense_;  // -1: not seen yet
  std::unordered_map<int64_t, int32_t> sparse_;
  std::vector<std::string> names_;
  int64_t last_id_ = 0;
  int32_t last_ = -1;
};

// An events row's columns, in the order ReadEventRow reads them: the
// timeline's first, then the details a timeline scan leaves out.
constexpr const char* kEventTimelineColumns = "rank, lane, start_ns, end_ns, iteration, kind, name_id, correlation";
constexpr const char* kEventDetailColumns = ", bytes, flops, chunk, step, peer";

// Fills `e` from the current row of a statement that selects
// kEventTimelineColumns (and kEventDetailColumns if `details`). `where`
// names the run in a damaged store's message, `context` a read failure's.
// A name that cannot be read: a damaged store's message, or a failed read's.
Status NameError(const Status& s, const std::string& where, const std::string& context) {
  if (s.code() == StatusCode::kInvalidArgument) return Status::Invalid(where + ": an event " + s.message());
  return db::WithContext(s, context);
}

Result<EventKind> KindOfRow(int64_t kind, const std::string& where) {
  if (kind < 0 || kind > int64_t(EventKind::kMarker)) {
    return Status::Invalid(where + ": an event has kind " + std::to_string(kind) + " (not an event kind)");
  }
  return EventKind(kind);
}

Status ReadEventRow(const db::Statement& st, NameCache& names, bool details, const std::string& where,
                    const std::string& context, Event& e) {
  Result<const std::string*> name = names.Get(st.Int(6));
  if (!name.ok()) return NameError(name.status(), where, context);
  BRAID_ASSIGN_OR_RETURN(const EventKind kind, KindOfRow(st.Int(5), where));
  e.rank = int(st.Int(0));
  e.lane = int(st.Int(1));
  e.start_ns = st.Int(2);
  e.end_ns = st.Int(3);
  e.iteration = int(st.Int(4));
  e.kind = kind;
  e.name = **name;
  e.correlation = st.Int(7);
  if (details) {
    e.bytes = st.Int(8);
    e.flops = st.Double(9);
    e.chunk = int(st.Int(10));
    e.step = int(st.Int(11));
    e.peer = int(st.Int(12));
  } else {
    // Reset: the scan's buffer reuses its events from batch to batch.
    const Event none;
    e.bytes = none.bytes;
    e.flops = none.flops;
    e.chunk = none.chunk;
    e.step = none.step;
    e.peer = none.peer;
  }
  return Status::Ok();
}

// The drawn columns of the current row of a lane's scan (kLaneDrawnColumns),
// read in the order they are stored: each sqlite3_column_* call parses the
// record up to its column. The lane's rank and lane were bound, not read.
constexpr const char* kLaneDrawnColumns = "start_ns, end_ns, iteration, kind, name_id, correlation";

Status ReadDrawnRow(const db::Statement& st, NameIndex& names, const std::string& where, const std::string& context,
                    Store::DrawnEventRow& e) {
  Result<int32_t> name = names.Get(st.Int(4));
  if (!name.ok()) return NameError(name.status(), where, context);
  BRAID_ASSIGN_OR_RETURN(e.kind, KindOfRow(st.Int(3), where));
  e.start_ns = st.Int(0);
  e.end_ns = st.Int(1);
  e.iteration = int(st.Int(2));
  e.name = *name;
  e.correlation = st.Int(5);
  return Status::Ok();
}

// The (rank, lane) keys of a run's events (in a range of ranks), in key
// order, one index seek each. Two statements, not one with
// (rank, lane) > (?, ?): SQLite seeks that row value to the last lane
// itself and walks all of its rows to get past it.
class LaneKeys {
 public:
  static Result<LaneKeys> Prepare(sqlite3* db, int64_t run, const Store::EventScan& scan) {
    BRAID_ASSIGN_OR_RETURN(
        db::Statement same_rank,
        db::Statement::Prepare(
            db, "SELECT lane FROM events WHERE run = ?1 AND rank = ?2 AND lane > ?3 ORDER BY lane LIMIT 1"));
    std::string sql = "SELECT rank, lane FROM events WHERE run = ?1 AND rank > ?2";
    if (scan.ranks) sql += " AND rank < ?3";
    sql += " ORDER BY rank, lane LIMIT 1";
    BRAID_ASSIGN_OR_RETURN(db::Statement later_rank, db::Statement::Prepare(db, sql));
    same_rank.BindInt(1, run);
    later_rank.BindInt(1, run);
    if (scan.ranks) later_rank.BindInt(3, scan.ranks->second);
    // Below every key: stored ranks are C ints. With a range of ranks, just
    // below its first.
    const int64_t below = scan.ranks ? int64_t(scan.ranks->first) - 1 : INT64_MIN;
    return LaneKeys(std::move(same_rank), std::move(later_rank), below);
  }

  // The key after the last one given; false after the last.
  Result<bool> Next(int64_t* rank, int64_t* lane) {
    if (started_) {
      BRAID_ASSIGN_OR_RETURN(bool found, same_rank_.BindInt(2, rank_).BindInt(3, lane_).Step());
      if (found) lane_ = same_rank_.Int(0);
      BRAID_RETURN_IF_ERROR(same_rank_.Reset());
      if (found) return Give(rank, lane);
    }
    BRAID_ASSIGN_OR_RETURN(bool found, later_rank_.BindInt(2, rank_).Step());
    if (found) {
      rank_ = later_rank_.Int(0);
      lane_ = later_rank_.Int(1);
    }
    BRAID_RETURN_IF_ERROR(later_rank_.Reset());
    if (!found) return false;
    started_ = true;
    return Give(rank, lane);
  }

 private:
  LaneKeys(db::Statement same_rank, db::Statement later_rank, int64_t below)
      : same_rank_(std::move(same_rank)), later_rank_(std::move(later_rank)), rank_(below) {}
  bool Give(int64_t* rank, int64_t* lane) const {
    *rank = rank_;
    *lane = lane_;
    return true;
  }

  db::Statement same_rank_, later_rank_;
  int64_t rank_ = 0, lane_ = 0;
  bool started_ = false;
};

// One lane's events in key order; ?2 and ?3 are its rank and lane.
Result<db::Statement> PrepareLaneScan(sqlite3* db, int64_t run, const Store::EventScan& scan) {
  std::string sql =
      std::string("SELECT ") + kLaneDrawnColumns + " FROM events WHERE run = ?1 AND rank = ?2 AND lane = ?3";
  if (scan.iteration) sql += " AND iteration = ?4";
  sql += " ORDER BY start_ns, seq";
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db, sql));
  st.BindInt(1, run);
  if (scan.iteration) st.BindInt(4, *scan.iteration);
  return st;
}

// A scan of `run`'s events in key order: the ORDER BY is the primary key's
// order, so there is no sort step, and SQLite hands rows over as it walks
// the key: nothing here grows with the run.
Result<db::Statement> PrepareEventScan(sqlite3* db, int64_t run, const Store::EventScan& scan, bool details) {
  std::string sql = std::string("SELECT ") + kEventTimelineColumns + (details ? kEventDetailColumns : "") +
                    " FROM events WHERE run = ?1";
  if (scan.iteration) sql += " AND iteration = ?2";
  if (scan.ranks) sql += " AND rank >= ?3 AND rank < ?4";
  sql += " ORDER BY rank, lane, start_ns, seq";
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db, sql));
  st.BindInt(1, run);
  if (scan.iteration) st.BindInt(2, *scan.iteration);
  if (scan.ranks) st.BindInt(3, scan.ranks->first).BindInt(4, scan.ranks->second);
  return st;
}

Status CheckedCount(const StoredRun& meta, const std::string& where) {
  if (meta.event_count < 0) {
    return Status::Invalid(where + " has event_count " + std::to_string(meta.event_count) + " (not a count)");
  }
  return Status::Ok();
}

// A filtered scan sees part of the run; only a whole one can be counted.
Status CheckSeen(const StoredRun& meta, const Store::EventScan& scan, int64_t seen, const std::string& where) {
  if (!scan.iteration && !scan.ranks && seen != meta.event_count) {
    return Status::Invalid(where + " has event_count " + std::to_string(meta.event_count) + " but " +
                           std::to_string(seen) + " events");
  }
  return Status::Ok();
}

std::string DamagedRun(int64_t run, const std::string& path) {
  return DamagedStorePrefix("run " + std::to_string(run) + " of " + path);
}

std::string LoadingRun(int64_t run, const std::string& path) {
  return "loading run " + std::to_string(run) + " of " + path;
}

// One read transaction for as long as it lives, so that a scan made of
// several statements sees one snapshot of the store, as one statement
// would. Inside the caller's own transaction it does nothing.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(sqlite3* db) : db_(db) {}
  ~ReadSnapshot() {
    if (open_) (void)db::Exec(db_, "COMMIT");
  }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

  Status Begin() {
    if (!sqlite3_get_autocommit(db_)) return Status::Ok();
    BRAID_RETURN_IF_ERROR(db::Exec(db_, "BEGIN"));
    open_ = true;
    return Status::Ok();
  }

 private:
  sqlite3* db_;
  bool open_ = false;
};

}  // namespace

Result<std::vector<StoredRun>> Store::ListRuns() const {
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, std::string(kRunColumns) + " ORDER BY id"));
  std::vector<StoredRun> runs;
  for (;;) {
    Result<bool> row = st.Step();
    if (!row.ok()) return db::WithContext(row.status(), "listing runs in " + path_);
    if (!*row) break;
    BRAID_ASSIGN_OR_RETURN(StoredRun run, ReadRun(st, path_));
    runs.push_back(std::move(run));
  }
  return runs;
}

Result<StoredRun> Store::GetRun(int64_t id) const {
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, std::string(kRunColumns) + " AND id = ?1"));
  Result<bool> row = st.BindInt(1, id).Step();
  if (!row.ok()) return db::WithContext(row.status(), "reading run " + std::to_string(id) + " of " + path_);
  if (!*row) return Status::NotFound("no run " + std::to_string(id) + " in " + path_);
  return ReadRun(st, path_);
}

Status Store::CheckRunExists(int64_t run) const {
  BRAID_ASSIGN_OR_RETURN(db::Statement st,
                         db::Statement::Prepare(db_, "SELECT 1 FROM runs WHERE id = ?1 AND status = 'complete'"));
  BRAID_ASSIGN_OR_RETURN(bool row, st.BindInt(1, run).Step());
  if (!row) return Status::NotFound("no run " + std::to_string(run) + " in " + path_);
  return Status::Ok();
}

Status Store::ScanEvents(int64_t run, const EventScan& scan,
                         const std::function<Status(std::span<Event>)>& visit) const {
  BRAID_ASSIGN_OR_RETURN(StoredRun meta, GetRun(run));
  BRAID_ASSIGN_OR_RETURN(NameCache names, MakeNameCache(db_));
  BRAID_ASSIGN_OR_RETURN(db::Statement st, PrepareEventScan(db_, run, scan, scan.details));
  const std::string where = DamagedRun(run, path_);
  const std::string context = LoadingRun(run, path_);
  BRAID_RETURN_IF_ERROR(CheckedCount(meta, where));
  const size_t batch = std::max<size_t>(1, scan.batch);
  // The stored count is a claim, not a size: a damaged `runs` row must not
  // become an allocation, so it only caps the first reservation.
  // The buffer's events are overwritten in place, never destroyed between
  // batches: their names' storage is reused (or refilled where the visitor
  // moved them out).
  std::vector<Event> events;
  events.reserve(size_t(std::min<int64_t>(meta.event_count, int64_t(batch))));
  size_t used = 0;
  int64_t seen = 0;
  for (;;) {
    Result<bool> row = st.Step();
    if (!row.ok()) return db::WithContext(row.status(), context);
    if (!*row || used == batch) {
      if (used > 0) BRAID_RETURN_IF_ERROR(visit(std::span<Event>(events.data(), used)));
      used = 0;
      if (!*row) break;
    }
    Event& e = used < events.size() ? events[used] : events.emplace_back();
    BRAID_RETURN_IF_ERROR(ReadEventRow(st, names, scan.details, where, context, e));
    ++used;
    ++seen;
  }
  return CheckSeen(meta, scan, seen, where);
}

Status Store::ScanDrawnEvents(
    int64_t run, const EventScan& scan,
    const std::function<Status(std::span<const DrawnEventRow>, const std::vector<std::string>& names)>& visit) const {
  BRAID_ASSIGN_OR_RETURN(StoredRun meta, GetRun(run));
  const std::string where = DamagedRun(run, path_);
  const std::string context = LoadingRun(run, path_);
  BRAID_RETURN_IF_ERROR(CheckedCount(meta, where));
  BRAID_ASSIGN_OR_RETURN(NameCache texts, MakeNameCache(db_));
  NameIndex names(std::move(texts));
  // Declared before the statements, so that they end before it does. The
  // file is not memory-mapped: a tenth less CPU at best, and a store
  // truncated by another process mid-scan would then kill the viewer with
  // SIGBUS instead of giving an I/O error.
  ReadSnapshot snapshot(db_);
  BRAID_RETURN_IF_ERROR(db::WithContext(snapshot.Begin(), context));
  // Lane by lane: a row's rank and lane are the lane's, bound rather than
  // read, which saves two of eight columns per row.
  BRAID_ASSIGN_OR_RETURN(LaneKeys lanes, LaneKeys::Prepare(db_, run, scan));
  BRAID_ASSIGN_OR_RETURN(db::Statement lane_rows, PrepareLaneScan(db_, run, scan));
  const size_t batch = std::max<size_t>(1, scan.batch);
  std::vector<DrawnEventRow> rows(size_t(std::min<int64_t>(meta.event_count, int64_t(batch))));
  size_t used = 0;
  int64_t seen = 0;
  auto hand_over = [&]() -> Status {
    if (used == 0) return Status::Ok();
    BRAID_RETURN_IF_ERROR(visit(std::span<const DrawnEventRow>(rows.data(), used), names.names()));
    used = 0;
    return Status::Ok();
  };
  int64_t rank = 0, lane = 0;
  for (;;) {
    Result<bool> found = lanes.Next(&rank, &lane);
    if (!found.ok()) return db::WithContext(found.status(), context);
    if (!*found) break;
    lane_rows.BindInt(2, rank).BindInt(3, lane);
    for (;;) {
      Result<bool> row = lane_rows.Step();
      if (!row.ok()) return db::WithContext(row.status(), context);
      if (!*row) break;
      if (used == batch) BRAID_RETURN_IF_ERROR(hand_over());
      if (used == rows.size()) rows.resize(std::min(batch, std::max<size_t>(16, rows.size() * 2)));
      DrawnEventRow& e = rows[used];
      BRAID_RETURN_IF_ERROR(ReadDrawnRow(lane_rows, names, where, context, e));
      e.rank = int(rank);
      e.lane = int(lane);
      ++used;
      ++seen;
    }
    BRAID_RETURN_IF_ERROR(db::WithContext(lane_rows.Reset(), context));
  }
  BRAID_RETURN_IF_ERROR(hand_over());
  return CheckSeen(meta, scan, seen, where);
}

Result<Event> Store::GetEvent(int64_t run, int rank, int lane, int64_t start_ns, int64_t ordinal) const {
  const std::string what = "event " + std::to_string(ordinal) + " at " + std::to_string(start_ns) + " ns on rank " +
                           std::to_string(rank) + " lane " + std::to_string(lane) + " of run " + std::to_string(run);
  if (ordinal < 0) return Status::NotFound("no " + what + " in " + path_);
  BRAID_RETURN_IF_ERROR(CheckRunExists(run));
  BRAID_ASSIGN_OR_RETURN(NameCache names, MakeNameCache(db_));
  const std::string sql = std::string("SELECT ") + kEventTimelineColumns + kEventDetailColumns +
                          " FROM events WHERE run = ?1 AND rank = ?2 AND lane = ?3 AND start_ns = ?4"
                          " ORDER BY seq LIMIT 1 OFFSET ?5";
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, sql));
  st.BindInt(1, run).BindInt(2, rank).BindInt(3, lane).BindInt(4, start_ns).BindInt(5, ordinal);
  Result<bool> row = st.Step();
  if (!row.ok()) return db::WithContext(row.status(), "reading " + what + " of " + path_);
  if (!*row) return Status::NotFound("no " + what + " in " + path_);
  Event e;
  BRAID_RETURN_IF_ERROR(
      ReadEventRow(st, names, /*details=*/true, DamagedRun(run, path_), "reading " + what + " of " + path_, e));
  return e;
}

Result<std::vector<Event>> Store::LoadEvents(int64_t run) const {
  std::vector<Event> all;
  BRAID_RETURN_IF_ERROR(ScanEvents(run, {}, [&](std::span<const Event> batch) {
    if (all.empty()) all.reserve(batch.size());
    all.insert(all.end(), batch.begin(), batch.end());
    return Status::Ok();
  }));
  return all;
}

Result<EventExtent> Store::GetEventExtent(int64_t run, std::optional<int> iteration) const {
  BRAID_RETURN_IF_ERROR(CheckRunExists(run));
  std::string sql = "SELECT COUNT(*), MIN(start_ns), MIN(iteration), MAX(iteration) FROM events WHERE run = ?1";
  if (iteration) sql += " AND iteration = ?2";
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, sql));
  st.BindInt(1, run);
  if (iteration) st.BindInt(2, *iteration);
  Result<bool> row = st.Step();
  if (!row.ok()) return db::WithContext(row.status(), "reading run " + std::to_string(run) + " of " + path_);
  EventExtent x;
  if (!*row) return x;
  x.count = st.Int(0);
  if (x.count > 0) {
    x.first_start_ns = st.Int(1);
    x.first_iteration = int(st.Int(2));
    x.last_iteration = int(st.Int(3));
  }
  return x;
}

Result<std::optional<std::pair<int, int>>> Store::GetEventRankRange(int64_t run) const {
  BRAID_RETURN_IF_ERROR(CheckRunExists(run));
  // Two statements: SQLite answers a lone MIN or MAX of a key prefix from
  // the index's edge, but MIN and MAX together by a scan.
  std::optional<std::pair<int, int>> range;
  for (const char* sql :
       {"SELECT MIN(rank) FROM events WHERE run = ?1", "SELECT MAX(rank) FROM events WHERE run = ?1"}) {
    BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, sql));
    Result<bool> row = st.BindInt(1, run).Step();
    if (!row.ok()) return db::WithContext(row.status(), "reading run " + std::to_string(run) + " of " + path_);
    if (!*row || st.IsNull(0)) return std::optional<std::pair<int, int>>();
    const int rank = int(st.Int(0));
    if (!range) {
      range = std::pair<int, int>(rank, rank);
    } else {
      range->second = rank;
    }
  }
  return range;
}

Result<std::vector<LaneInfo>> Store::LoadLanes(int64_t run) const {
  BRAID_RETURN_IF_ERROR(CheckRunExists(run));
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(db_, "SELECT rank, lane, name, kind FROM lanes WHERE run = ?1 ORDER BY rank, lane"));
  st.BindInt(1, run);
  std::vector<LaneInfo> lanes;
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    lanes.push_back({int(st.Int(0)), int(st.Int(1)), st.Text(2), st.Text(3)});
  }
  return lanes;
}

Result<std::vector<MetricRow>> Store::LoadMetrics(int64_t run) const {
  BRAID_RETURN_IF_ERROR(CheckRunExists(run));
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(db_,
                             "SELECT m.iteration, m.rank, s.text, m.value, m.name_id FROM metrics m LEFT JOIN strings s"
                             " ON s.id = m.name_id WHERE m.run = ?1 ORDER BY m.iteration, m.rank, s.text"));
  st.BindInt(1, run);
  std::vector<MetricRow> rows;
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    if (st.IsNull(2)) {
      return Status::Invalid(DamagedRun(run, path_) + ": a metric names string " + std::to_string(st.Int(4)) +
                             ", which the store does not have");
    }
    rows.push_back({int(st.Int(0)), int(st.Int(1)), st.Text(2), st.Double(3)});
  }
  return rows;
}

}  // namespace braid
