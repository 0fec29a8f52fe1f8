#include "import_command.h"

#include <filesystem>
#include <iostream>
#include <set>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/notes_keys.h"
#include "braid/run_record.h"
#include "braid/trace_import.h"
#include "cli_exit.h"
#include "created_store_guard.h"
#include "gemm_report.h"
#include "run_report.h"
#include "store_access.h"

namespace braid::cli {

void AddImportOptions(CLI::App* sub, ImportArgs* a) {
  sub->add_option("format", a->format, "kineto | nsys")->required();
  sub->add_option("files", a->files,
                  "trace files (Kineto: one per rank, .json or .json.gz, or the job's directory; nsys: one .sqlite)")
      ->required();
  sub->add_option("--threads", a->threads,
                  "Kineto: threads to read the files on, one file each, or two for a file when the threads are twice "
                  "the files (default: every hardware thread, at most 16)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--db", a->db, "SQLite store")->capture_default_str();
  sub->add_flag("--json", a->json, "print the stored run as one JSON object");
  sub->add_option("--ub-cfgs", a->ub_cfgs,
                  "a TransformerEngine ub_cfgs YAML: per key, did the method it names (or TE's default) show in the "
                  "trace's GEMMs of that key (as report --by-gemm --ub-cfgs)");
}

namespace {

std::string LaneKind(const std::string& name) {
  if (name == "cpu runtime") return "cpu";
  if (name == "nvtx") return "marker";
  if (name == "cpu ops") return "cpu";
  return "gpu stream";
}

void AddLanes(const ImportedRank& rank, std::vector<LaneInfo>* out) {
  for (const ImportedLane& l : rank.lanes) out->push_back({rank.rank, l.lane, l.name, LaneKind(l.name)});
}

// The run's row for the whole trace: every rank's HTA figures, and Braid's
// figures (`metrics`: every rank's events').
Result<RunRecord> RecordOf(const ImportedTrace& trace, const RunMetrics& metrics) {
  RunRecord r;
  r.source = "imported";
  r.backend = trace.format;
  r.has_workload = false;
  r.config = nlohmann::json::object();
  r.notes[note::kFiles] = trace.files;
  r.notes[note::kHta] = nlohmann::json::array();
  std::set<int> seen;
  int world = 0;
  for (const ImportedRank& rank : trace.ranks) {
    if (!seen.insert(rank.rank).second) {
      return Status::Invalid("two traces claim rank " + std::to_string(rank.rank) + "; give one file per rank");
    }
    world = std::max(world, rank.world);
    const char* unit = trace.format == "kineto" ? "us" : "ns";
    r.notes[note::kHta].push_back(
        HtaRankNoteJson({rank.rank, rank.device, unit, rank.hta.comm, rank.hta.compute, rank.hta.overlap,
                         rank.hta.overlap_pct, rank.hta.idle_pct, rank.hta.compute_pct}));
  }
  r.workload.tp = world;
  r.iterations = metrics.iterations;
  r.figures = FiguresOf(metrics, std::nullopt);
  return r;
}

// A ub_cfgs file needs a TP group in the trace: checked before the run is
// committed, so that a refused import writes nothing.
Status CheckUbCfgsFits(const ImportArgs& a, const RunRecord& record) {
  if (a.ub_cfgs.empty()) return Status::Ok();
  return CheckUbCfgsHasTpGroup(a.ub_cfgs, record.workload.tp, record.workload.tp);
}

// nsys: one file, read whole, then stored.
Result<RunRecord> ImportNsysRun(const ImportArgs& a, Store& store) {
  if (a.files.size() != 1) return Status::Invalid("import nsys takes one .sqlite file");
  BRAID_ASSIGN_OR_RETURN(ImportedTrace trace, ImportNsys(a.files[0]));
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
  for (ImportedRank& rank : trace.ranks) {
    AddLanes(rank, &lanes);
    for (Event& e : rank.events) events.push_back(std::move(e));
  }
  BRAID_ASSIGN_OR_RETURN(RunRecord record, RecordOf(trace, ComputeRunMetrics(events)));
  BRAID_RETURN_IF_ERROR(CheckUbCfgsFits(a, record));
  BRAID_ASSIGN_OR_RETURN(record.run_id, store.WriteRun(MetaOf(record), lanes, events, RowsOf(record)));
  return record;
}

// Kineto: each rank stored as soon as its file is read, while the workers
// read the next files (KinetoJob), all in one transaction: a bad file
// anywhere leaves nothing of the run in the store. Each rank's figures are
// taken as it is stored and its events dropped then: the whole job is never
// held at once (a 64-rank job of the shared traces peaked at 578 MB holding
// them, and spent a tenth of its time gathering them for the figures).
Result<RunRecord> ImportKinetoRun(const ImportArgs& a, KinetoJob& job, Store& store) {
  RunMetricsBuilder figures;
  Status figures_status;  // Add refuses a rank twice, which KinetoJob::Next has already refused
  Store::RunPart part;
  const auto next = [&]() -> Result<const Store::RunPart*> {
    if (!part.events.empty() && figures_status.ok()) figures_status = figures.Add(part.events);
    job.GiveBack(std::move(part.events));  // a worker frees them and reuses the buffer
    part.events.clear();
    part.lanes.clear();
    BRAID_ASSIGN_OR_RETURN(ImportedRank * rank, job.Next());
    if (rank == nullptr) return static_cast<const Store::RunPart*>(nullptr);
    AddLanes(*rank, &part.lanes);
    part.events = std::move(rank->events);
    return &part;
  };
  RunRecord record;
  const auto finish = [&]() -> Result<Store::RunEnd> {
    BRAID_ASSIGN_OR_RETURN(ImportedTrace trace, job.Finish());
    BRAID_RETURN_IF_ERROR(figures_status);
    BRAID_ASSIGN_OR_RETURN(record, RecordOf(trace, figures.Finish()));
    BRAID_RETURN_IF_ERROR(CheckUbCfgsFits(a, record));
    return Store::RunEnd{MetaOf(record), RowsOf(record)};
  };
  BRAID_ASSIGN_OR_RETURN(record.run_id, store.WriteRunInParts(next, finish));
  return record;
}

}  // namespace

// The stored run's GEMMs against the ub_cfgs keys.
Result<std::vector<TeKeyCheck>> CheckStoredRun(const ImportArgs& a, const std::vector<UbKeyExpectation>& keys,
                                               int64_t run, int tp) {
  BRAID_ASSIGN_OR_RETURN(auto store, OpenStoreForRead(a.db));
  BRAID_ASSIGN_OR_RETURN(auto events, store->LoadEvents(run));
  BRAID_ASSIGN_OR_RETURN(auto lanes, store->LoadLanes(run));
  std::vector<TraceLane> trace_lanes;
  for (const LaneInfo& l : lanes) trace_lanes.push_back({l.rank, l.lane, l.name});
  return CheckTeUbCfgs(AnalyzeGemmOverlap(events, trace_lanes), keys, tp);
}

int ExecuteImport(const ImportArgs& a) {
  if (a.format != "kineto" && a.format != "nsys") {
    return ReportError("import",
                       Status::Invalid("unknown trace format '" + OneLine(a.format) + "' (known: kineto, nsys)"));
  }
  for (const std::string& f : a.files) {
    std::error_code ec;
    if (a.format == "nsys" && std::filesystem::is_directory(f, ec)) {
      return ReportError("import", Status::Invalid("'" + OneLine(f) + "' is a directory, not an nsys export"));
    }
  }
  if (Status s = CheckStoreWritable(a.db); !s.ok()) return ReportError("import", s);
  std::vector<UbKeyExpectation> te_keys;
  if (!a.ub_cfgs.empty()) {
    auto keys = UbKeyExpectationsOf(a.ub_cfgs);
    if (!keys.ok()) return ReportError("import", keys.status());
    te_keys = std::move(*keys);
  }
  // Kineto: the files are listed and the workers started before the store
  // is opened, so that a directory without traces creates nothing.
  std::unique_ptr<KinetoJob> job;
  if (a.format == "kineto") {
    auto started = KinetoJob::Start(a.files, {.threads = a.threads});
    if (!started.ok()) return ReportError("import", started.status());
    job = std::move(started).value();
  }
  std::error_code ec;
  const bool store_existed = std::filesystem::exists(a.db, ec);
  CreatedStoreGuard guard(a.db, !store_existed);  // an import killed part-way leaves no new store
  Result<RunRecord> record = Status::Internal("import: not run");
  {
    auto store = OpenStoreForWrite(a.db);
    if (!store.ok()) return ReportError("import", store.status());
    record = job ? ImportKinetoRun(a, *job, **store) : ImportNsysRun(a, **store);
  }  // the store is closed before the guard removes a failed import's new file
  if (!record.ok()) return ReportError("import", record.status());
  guard.Release();  // committed
  std::vector<TeKeyCheck> checks;
  if (!te_keys.empty()) {
    auto checked = CheckStoredRun(a, te_keys, record->run_id, record->workload.tp);
    if (!checked.ok()) return ReportError("import", checked.status());
    checks = std::move(*checked);
  }
  if (a.json) {
    nlohmann::json j = RunJson(*record);
    if (!te_keys.empty()) j["ub_cfgs"] = TeChecksJson(checks);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << RunTable(*record);
    if (!te_keys.empty()) std::cout << TeChecksTable(a.ub_cfgs, checks);
  }
  return kExitOk;
}

}  // namespace braid::cli
