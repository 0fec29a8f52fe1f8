#include "import_command.h"

#include <filesystem>
#include <iostream>

#include "braid/trace_run.h"
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
  TraceImportRequest request{a.format, a.files, a.threads, nullptr};
  if (Status s = CheckTraceImport(request); !s.ok()) return ReportError("import", s);
  if (Status s = CheckStoreWritable(a.db); !s.ok()) return ReportError("import", s);
  std::vector<UbKeyExpectation> te_keys;
  if (!a.ub_cfgs.empty()) {
    auto keys = UbKeyExpectationsOf(a.ub_cfgs);
    if (!keys.ok()) return ReportError("import", keys.status());
    te_keys = std::move(*keys);
    // A ub_cfgs file needs a TP group in the trace: checked before the run
    // is committed, so that a refused import writes nothing.
    request.check_before_commit = [&a](const RunRecord& record) {
      return CheckUbCfgsHasTpGroup(a.ub_cfgs, record.workload.tp, record.workload.tp);
    };
  }
  // Kineto: the files are listed and the workers started before the store
  // is opened, so that a directory without traces creates nothing.
  auto import = TraceImport::Start(std::move(request));
  if (!import.ok()) return ReportError("import", import.status());
  std::error_code ec;
  const bool store_existed = std::filesystem::exists(a.db, ec);
  CreatedStoreGuard guard(a.db, !store_existed);  // an import killed part-way leaves no new store
  Result<RunRecord> record = Status::Internal("import: not run");
  {
    auto store = OpenStoreForWrite(a.db);
    if (!store.ok()) return ReportError("import", store.status());
    record = import->StoreIn(**store);
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
