#include "report_command.h"

#include <iostream>

#include "braid/store.h"
#include "cli_exit.h"
#include "braid/run_record.h"
#include "run_report.h"
#include "store_access.h"

namespace braid::cli {

void AddReportOptions(CLI::App* sub, ReportArgs* a) {
  sub->add_option("--db", a->db, "SQLite store")->capture_default_str();
  sub->add_option("--run", a->run, "run id (default: list the runs)");
  sub->add_flag("--json", a->json, "print one JSON object");
}

namespace {

nlohmann::json ListJson(const std::vector<StoredRun>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const StoredRun& r : runs) {
    nlohmann::json j = {{"run", r.id},           {"backend", r.meta.backend}, {"status", r.status},
                        {"source", r.meta.source}, {"created_at", r.created_at}, {"topology", r.meta.topology},
                        {"events", r.event_count}};
    const Workload& w = r.meta.workload;
    j["workload"] = r.meta.has_workload
                        ? nlohmann::json{{"op", OpName(w.op)}, {"m", w.m}, {"n", w.n}, {"k", w.k},
                                         {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}}
                        : nlohmann::json(nullptr);
    j["config"] = nlohmann::json::parse(r.meta.config_json, nullptr, false);
    list.push_back(std::move(j));
  }
  return {{"runs", list}};
}

std::string ListTable(const std::vector<StoredRun>& runs) {
  std::string out = "run   created                   source    backend  workload                                  config\n";
  for (const StoredRun& r : runs) {
    const nlohmann::json cfg = nlohmann::json::parse(r.meta.config_json, nullptr, false);
    std::string config = cfg.is_object() && cfg.contains("algorithm")
                             ? cfg["algorithm"].get<std::string>() + " chunks=" + std::to_string(cfg.value("chunks", 1))
                             : "-";
    const std::string workload = r.meta.has_workload ? r.meta.workload.Describe()
                                                     : "trace, " + std::to_string(r.meta.workload.tp) + " rank(s)";
    out += Pad(std::to_string(r.id), 6) + Pad(r.created_at, 26) + Pad(r.meta.source, 10) + Pad(r.meta.backend, 9) +
           Pad(workload, 42) + config + "\n";
  }
  if (runs.empty()) out += "(no runs)\n";
  return out;
}

}  // namespace

int ExecuteReport(const ReportArgs& a) {
  auto store = OpenStoreForRead(a.db);
  if (!store.ok()) return ReportError("report", store.status());
  if (a.run < 0) {
    auto runs = (*store)->ListRuns();
    if (!runs.ok()) return ReportError("report", runs.status());
    std::cout << (a.json ? ListJson(*runs).dump(2) + "\n" : ListTable(*runs));
    return kExitOk;
  }
  auto run = (*store)->GetRun(a.run);
  if (!run.ok()) return ReportError("report", run.status());
  auto rows = (*store)->LoadMetrics(a.run);
  if (!rows.ok()) return ReportError("report", rows.status());
  auto rec = RecordOfStored(*run, *rows);
  if (!rec.ok()) return ReportError("report", rec.status());
  std::cout << (a.json ? RunJson(*rec).dump(2) + "\n" : RunTable(*rec));
  return kExitOk;
}

}  // namespace braid::cli
