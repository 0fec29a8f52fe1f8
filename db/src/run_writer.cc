// Store::WriteRun: one run, one IMMEDIATE transaction. Until COMMIT, nothing
// of the run is visible to readers; a process killed before COMMIT leaves
// uncommitted WAL frames that SQLite discards on the next open.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "braid/store.h"
#include "statement.h"
#include "trial_rows.h"

namespace braid {
namespace {

Status CheckJson(const std::string& text, const char* field) {
  if (text.empty() || nlohmann::json::accept(text)) return Status::Ok();
  return Status::Invalid(std::string("RunMeta.") + field + " is not valid JSON: " + text.substr(0, 80));
}

Status ValidateMeta(const RunMeta& meta) {
  if (meta.source != "measured" && meta.source != "imported") {
    return Status::Invalid("RunMeta.source must be 'measured' or 'imported' (got '" + meta.source + "')");
  }
  BRAID_RETURN_IF_ERROR(CheckJson(meta.config_json, "config_json"));
  return CheckJson(meta.notes_json, "notes_json");
}

Status ValidateEvents(const std::vector<Event>& events) {
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    if (e.end_ns < e.start_ns) {
      return Status::Invalid("event " + std::to_string(i) + " ('" + e.name + "') ends before it starts (" +
                             std::to_string(e.start_ns) + " > " + std::to_string(e.end_ns) + ")");
    }
    const int kind = int(e.kind);
    if (kind < int(EventKind::kCompute) || kind > int(EventKind::kMarker)) {
      return Status::Invalid("event " + std::to_string(i) + " has an unknown kind " + std::to_string(kind));
    }
  }
  return Status::Ok();
}

Status ValidateRun(const RunMeta& meta, const std::vector<Event>& events) {
  BRAID_RETURN_IF_ERROR(ValidateMeta(meta));
  return ValidateEvents(events);
}

// Storage order from events whose starts never go back within a (rank,
// lane), as an importer's time-sorted events are: a stable split by (rank,
// lane), in two passes instead of a sort (35 MB trace: 34,000 events in
// 5 lanes). False, with `order` unspecified, when some lane's starts do go
// back.
bool SplitByLane(const std::vector<Event>& events, std::vector<size_t>* order) {
  struct Lane {
    size_t count = 0, next = 0;
    int64_t last_start = INT64_MIN;
  };
  std::map<std::pair<int, int>, Lane> lanes;
  std::vector<Lane*> lane_of(events.size());
  Lane* last = nullptr;
  std::pair<int, int> last_key;
  for (size_t i = 0; i < events.size(); ++i) {
    const std::pair<int, int> key{events[i].rank, events[i].lane};
    if (last == nullptr || key != last_key) {
      last = &lanes[key];  // std::map: the pointers stay valid as lanes are added
      last_key = key;
    }
    if (events[i].start_ns < last->last_start) return false;
    last->last_start = events[i].start_ns;
    ++last->count;
    lane_of[i] = last;
  }
  size_t at = 0;
  for (auto& [key, lane] : lanes) {  // in (rank, lane) order
    lane.next = at;
    at += lane.count;
  }
  for (size_t i = 0; i < events.size(); ++i) (*order)[lane_of[i]->next++] = i;
  return true;
}

// Indices of `events` in storage order: (rank, lane, start_ns), ties in input
// order. Backends mostly emit in that order already; check before sorting.
std::vector<size_t> StorageOrder(const std::vector<Event>& events) {
  std::vector<size_t> order(events.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto less = [&](size_t a, size_t b) {
    const Event& x = events[a];
    const Event& y = events[b];
    if (x.rank != y.rank) return x.rank < y.rank;
    if (x.lane != y.lane) return x.lane < y.lane;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return a < b;
  };
  if (std::is_sorted(order.begin(), order.end(), less) || SplitByLane(events, &order)) return order;
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), less);
  return order;
}

// Maps names to strings.id inside the run's transaction, inserting new ones.
class Interner {
 public:
  static Result<Interner> Create(sqlite3* db) {
    BRAID_ASSIGN_OR_RETURN(db::Statement find, db::Statement::Prepare(db, "SELECT id FROM strings WHERE text = ?1"));
    BRAID_ASSIGN_OR_RETURN(db::Statement add, db::Statement::Prepare(db, "INSERT INTO strings (text) VALUES (?1)"));
    return Interner(db, std::move(find), std::move(add));
  }

  Result<int64_t> Id(std::string_view name) {
    if (auto it = cache_.find(name); it != cache_.end()) return it->second;
    BRAID_ASSIGN_OR_RETURN(bool row, find_.BindText(1, name).Step());
    int64_t id = 0;
    if (row) {
      id = find_.Int(0);
    } else {
      BRAID_RETURN_IF_ERROR(add_.BindText(1, name).Run());
      id = sqlite3_last_insert_rowid(db_);
    }
    BRAID_RETURN_IF_ERROR(find_.Reset());
    cache_.emplace(name, id);
    return id;
  }

 private:
  Interner(sqlite3* db, db::Statement find, db::Statement add)
      : db_(db), find_(std::move(find)), add_(std::move(add)) {}
  sqlite3* db_;
  db::Statement find_, add_;
  // Owns its keys (a run written in parts frees a part's names before the
  // next); looked up by view, without a copy.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> cache_;
};

// op / dtype of a run without a GEMM workload (an imported trace).
constexpr std::string_view kNoWorkload = "-";

// The run row's 17 columns bound as ?1 … ?17, for InsertRun and UpdateRun.
void BindRunColumns(db::Statement& st, const RunMeta& meta, size_t event_count) {
  const Workload& w = meta.workload;
  st.BindText(1, meta.source)
      .BindText(2, meta.backend)
      .BindText(3, meta.topology)
      .BindText(4, meta.has_workload ? OpName(w.op) : kNoWorkload)
      .BindInt(5, meta.has_workload ? w.m : 0)
      .BindInt(6, meta.has_workload ? w.n : 0)
      .BindInt(7, meta.has_workload ? w.k : 0)
      .BindText(8, meta.has_workload ? DTypeName(w.dtype) : kNoWorkload)
      .BindInt(9, w.tp)
      .BindText(10, meta.config_json.empty() ? "{}" : meta.config_json)
      .BindText(11, meta.host)
      .BindText(12, meta.braid_version)
      .BindText(13, meta.git_revision)
      .BindInt(14, meta.iterations)
      .BindInt(15, meta.warmup)
      .BindText(16, meta.notes_json.empty() ? "{}" : meta.notes_json)
      .BindInt(17, int64_t(event_count));
}

Result<int64_t> InsertRun(sqlite3* db, const RunMeta& meta, size_t event_count) {
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(
          db,
          "INSERT INTO runs (status, source, backend, topology, op, m, n, k, dtype, tp, config_json, host,"
          " braid_version, git_revision, iterations, warmup, notes_json, event_count)"
          " VALUES ('complete', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"));
  BindRunColumns(st, meta, event_count);
  BRAID_RETURN_IF_ERROR(st.Run());
  return sqlite3_last_insert_rowid(db);
}

// A run written in parts gets its row first (the events need its id) and
// its columns once the last part is in: all inside the one transaction.
Status UpdateRun(sqlite3* db, int64_t run, const RunMeta& meta, size_t event_count) {
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(db,
                             "UPDATE runs SET source = ?1, backend = ?2, topology = ?3, op = ?4, m = ?5, n = ?6,"
                             " k = ?7, dtype = ?8, tp = ?9, config_json = ?10, host = ?11, braid_version = ?12,"
                             " git_revision = ?13, iterations = ?14, warmup = ?15, notes_json = ?16,"
                             " event_count = ?17 WHERE id = ?18"));
  BindRunColumns(st, meta, event_count);
  return st.BindInt(18, run).Run();
}

Status InsertLanes(sqlite3* db, int64_t run, const std::vector<LaneInfo>& lanes) {
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(db, "INSERT INTO lanes (run, rank, lane, name, kind) VALUES (?1, ?2, ?3, ?4, ?5)"));
  for (const LaneInfo& l : lanes) {
    BRAID_RETURN_IF_ERROR(
        st.BindInt(1, run).BindInt(2, l.rank).BindInt(3, l.lane).BindText(4, l.name).BindText(5, l.kind).Run());
  }
  return Status::Ok();
}

// Events go in as multi-row INSERTs: one statement step per kRowsPerInsert
// rows halves the CPU cost per event against one row per step.
// OR ROLLBACK: a multi-row statement that could stop half way (a CHECK or
// key conflict, ABORT by default) makes SQLite keep a statement journal,
// and with 16 KiB pages it spilled to a temporary file: 26 MB of writes for
// a 35 MB Kineto trace (3,260 of the import's 3,692 pwrite calls). Every
// caller writes a run in one transaction that it rolls back on any error
// anyway, so a failed row ending the whole transaction loses nothing, and
// the rows are validated before they are bound (ValidateEvents).
constexpr int kRowsPerInsert = 64;
constexpr int kEventColumns = 15;

Result<db::Statement> PrepareEventInsert(sqlite3* db, size_t rows) {
  std::string sql =
      "INSERT OR ROLLBACK INTO events (run, rank, lane, start_ns, seq, end_ns, iteration, kind, name_id, bytes,"
      " flops, chunk, step, peer, correlation) VALUES ";
  for (size_t r = 0; r < rows; ++r)
    sql += r == 0 ? "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  return db::Statement::Prepare(db, sql);
}

void BindEvent(db::Statement& st, int row, int64_t run, int64_t seq, const Event& e, int64_t name_id) {
  const int p = row * kEventColumns;
  st.BindInt(p + 1, run)
      .BindInt(p + 2, e.rank)
      .BindInt(p + 3, e.lane)
      .BindInt(p + 4, e.start_ns)
      .BindInt(p + 5, seq)
      .BindInt(p + 6, e.end_ns)
      .BindInt(p + 7, e.iteration)
      .BindInt(p + 8, int(e.kind))
      .BindInt(p + 9, name_id)
      .BindInt(p + 10, e.bytes)
      .BindDouble(p + 11, e.flops)
      .BindInt(p + 12, e.chunk)
      .BindInt(p + 13, e.step)
      .BindInt(p + 14, e.peer)
      .BindInt(p + 15, e.correlation);
}

// `first_seq`: the seq of the first event stored; a run written in parts
// numbers on from the parts before.
Status InsertEvents(sqlite3* db, int64_t run, const std::vector<Event>& events, Interner& names, size_t first_seq = 0) {
  const std::vector<size_t> order = StorageOrder(events);
  const size_t full = order.size() / kRowsPerInsert * kRowsPerInsert;
  std::optional<db::Statement> batch;
  for (size_t first = 0; first < order.size(); first += kRowsPerInsert) {
    const size_t rows = first < full ? size_t(kRowsPerInsert) : order.size() - full;
    if (!batch || rows != size_t(kRowsPerInsert)) {  // the last, shorter batch gets its own
      batch.reset();
      BRAID_ASSIGN_OR_RETURN(db::Statement st, PrepareEventInsert(db, rows));
      batch.emplace(std::move(st));
    }
    for (size_t r = 0; r < rows; ++r) {
      const size_t seq = first + r;
      const Event& e = events[order[seq]];
      BRAID_ASSIGN_OR_RETURN(int64_t name, names.Id(e.name));
      BindEvent(*batch, int(r), run, int64_t(first_seq + seq), e, name);
    }
    BRAID_RETURN_IF_ERROR(batch->Run());
  }
  return Status::Ok();
}

Status InsertMetrics(sqlite3* db, int64_t run, const std::vector<MetricRow>& metrics, Interner& names) {
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(db,
                             "INSERT INTO metrics (run, iteration, rank, name_id, value) VALUES (?1, ?2, ?3, ?4, ?5)"));
  for (const MetricRow& m : metrics) {
    BRAID_ASSIGN_OR_RETURN(int64_t name, names.Id(m.name));
    BRAID_RETURN_IF_ERROR(
        st.BindInt(1, run).BindInt(2, m.iteration).BindInt(3, m.rank).BindInt(4, name).BindDouble(5, m.value).Run());
  }
  return Status::Ok();
}

// Foreign keys unchecked while a run's rows go in, checked again after:
// every key the writer puts in a row is one it has just inserted or read
// (the run's id, the interner's string ids), and the two parent lookups per
// event were a third of the insert's cost (braid_store_bench: 424k -> 665k
// events/s). SQLite ignores the pragma inside a transaction, so a caller's
// outer transaction keeps the checks on; the pragma is per connection.
class ForeignKeysOffWhileWriting {
 public:
  explicit ForeignKeysOffWhileWriting(sqlite3* db) : db_(db) { (void)db::Exec(db_, "PRAGMA foreign_keys = OFF"); }
  ~ForeignKeysOffWhileWriting() { (void)db::Exec(db_, "PRAGMA foreign_keys = ON"); }
  ForeignKeysOffWhileWriting(const ForeignKeysOffWhileWriting&) = delete;
  ForeignKeysOffWhileWriting& operator=(const ForeignKeysOffWhileWriting&) = delete;

 private:
  sqlite3* db_;
};

// Every row of the run; the caller holds the transaction.
Result<int64_t> InsertRunRows(sqlite3* db, const RunMeta& meta, const std::vector<LaneInfo>& lanes,
                              const std::vector<Event>& events, const std::vector<MetricRow>& metrics) {
  BRAID_ASSIGN_OR_RETURN(int64_t run, InsertRun(db, meta, events.size()));
  BRAID_ASSIGN_OR_RETURN(Interner names, Interner::Create(db));
  BRAID_RETURN_IF_ERROR(InsertLanes(db, run, lanes));
  BRAID_RETURN_IF_ERROR(InsertEvents(db, run, events, names));
  BRAID_RETURN_IF_ERROR(InsertMetrics(db, run, metrics, names));
  return run;
}

}  // namespace

Result<int64_t> Store::WriteRun(const RunMeta& meta, const std::vector<LaneInfo>& lanes,
                                const std::vector<Event>& events, const std::vector<MetricRow>& metrics) {
  BRAID_RETURN_IF_ERROR(CheckWritable());
  BRAID_RETURN_IF_ERROR(ValidateRun(meta, events));
  const std::string context = "writing a run to " + path_;
  const ForeignKeysOffWhileWriting unchecked(db_);  // before the transaction: inside it the pragma does nothing
  db::Transaction tx(db_);                          // rolls back on every early return
  BRAID_RETURN_IF_ERROR(db::WithContext(tx.Begin(), context));
  Result<int64_t> run = InsertRunRows(db_, meta, lanes, events, metrics);
  if (!run.ok()) return db::WithContext(run.status(), context);
  BRAID_RETURN_IF_ERROR(db::WithContext(tx.Commit(), context));
  return run;
}

// What a run being written holds between parts. Members are destroyed in
// reverse order: the statements first, then the transaction rolls back
// (unless committed), then the foreign-key checks come back on.
struct Store::RunWriter::Open {
  Open(sqlite3* db, std::string where) : unchecked(db), tx(db), context(std::move(where)) {}
  ForeignKeysOffWhileWriting unchecked;  // before the transaction: inside it the pragma does nothing
  db::Transaction tx;                    // rolls back unless Finish commits: no part of the run stays
  std::string context;
  int64_t run = 0;
  std::optional<Interner> names;
  size_t stored = 0;
};

Store::RunWriter::RunWriter(sqlite3* db, std::unique_ptr<Open> open) : db_(db), open_(std::move(open)) {}
Store::RunWriter::~RunWriter() = default;

Result<std::unique_ptr<Store::RunWriter>> Store::BeginRun() {
  BRAID_RETURN_IF_ERROR(CheckWritable());
  auto open = std::make_unique<RunWriter::Open>(db_, "writing a run to " + path_);
  BRAID_RETURN_IF_ERROR(db::WithContext(open->tx.Begin(), open->context));
  RunMeta provisional;  // replaced by Finish's once every part is in
  provisional.source = "imported";
  provisional.has_workload = false;
  Result<int64_t> run = InsertRun(db_, provisional, 0);
  if (!run.ok()) return db::WithContext(run.status(), open->context);
  open->run = *run;
  BRAID_ASSIGN_OR_RETURN(Interner names, Interner::Create(db_));
  open->names.emplace(std::move(names));
  return std::unique_ptr<RunWriter>(new RunWriter(db_, std::move(open)));
}

Status Store::RunWriter::Fail(Status s) {
  open_.reset();  // rolls back now: the store is the caller's again
  return s;
}

Status Store::RunWriter::Add(const RunPart& part) {
  if (!open_) return Status::Internal("run writer: the run is already finished or failed");
  if (Status s = ValidateEvents(part.events); !s.ok()) return Fail(s);
  if (Status s = InsertLanes(db_, open_->run, part.lanes); !s.ok()) return Fail(db::WithContext(s, open_->context));
  if (Status s = InsertEvents(db_, open_->run, part.events, *open_->names, open_->stored); !s.ok()) {
    return Fail(db::WithContext(s, open_->context));
  }
  open_->stored += part.events.size();
  return Status::Ok();
}

Result<int64_t> Store::RunWriter::Finish(const RunEnd& end) {
  if (!open_) return Status::Internal("run writer: the run is already finished or failed");
  if (Status s = ValidateMeta(end.meta); !s.ok()) return Fail(s);
  const std::string& context = open_->context;
  if (Status s = UpdateRun(db_, open_->run, end.meta, open_->stored); !s.ok()) return Fail(db::WithContext(s, context));
  if (Status s = InsertMetrics(db_, open_->run, end.metrics, *open_->names); !s.ok()) {
    return Fail(db::WithContext(s, context));
  }
  if (Status s = open_->tx.Commit(); !s.ok()) return Fail(db::WithContext(s, context));
  const int64_t run = open_->run;
  open_.reset();
  return run;
}

Result<int64_t> Store::WriteRunInParts(const std::function<Result<const RunPart*>()>& next,
                                       const std::function<Result<RunEnd>()>& finish) {
  BRAID_ASSIGN_OR_RETURN(auto writer, BeginRun());
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(const RunPart* part, next());
    if (part == nullptr) break;
    BRAID_RETURN_IF_ERROR(writer->Add(*part));
  }
  BRAID_ASSIGN_OR_RETURN(RunEnd end, finish());
  return writer->Finish(end);
}

Result<Store::TrialIds> Store::AddTrialWithRun(int64_t session, TrialInfo trial, const RunMeta& meta,
                                               const std::vector<LaneInfo>& lanes, const std::vector<Event>& events,
                                               const std::vector<MetricRow>& metrics) {
  BRAID_RETURN_IF_ERROR(CheckWritable());
  BRAID_RETURN_IF_ERROR(ValidateRun(meta, events));
  BRAID_RETURN_IF_ERROR(GetSession(session).status());
  const std::string context = "writing a trial to " + path_;
  const ForeignKeysOffWhileWriting unchecked(db_);  // before the transaction: inside it the pragma does nothing
  db::Transaction tx(db_);                          // rolls back on every early return: neither row stays
  BRAID_RETURN_IF_ERROR(db::WithContext(tx.Begin(), context));
  Result<int64_t> run = InsertRunRows(db_, meta, lanes, events, metrics);
  if (!run.ok()) return db::WithContext(run.status(), context);
  trial.run = *run;
  BRAID_ASSIGN_OR_RETURN(int64_t id, db::InsertTrialRow(db_, session, trial, path_));
  BRAID_RETURN_IF_ERROR(db::WithContext(tx.Commit(), context));
  return TrialIds{id, *run};
}

}  // namespace braid
