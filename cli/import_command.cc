#include "import_command.h"

#include <filesystem>
#include <iostream>
#include <set>

#include "braid/metric_rows.h"
#include "braid/run_record.h"
#include "braid/trace_import.h"
#include "cli_exit.h"
#include "run_report.h"
#include "store_access.h"

namespace braid::cli {

void AddImportOptions(CLI::App* sub, ImportArgs* a) {
  sub->add_option("format", a->format, "kineto | nsys")->required();
  sub->add_option("files", a->files, "trace files (Kineto: one per rank, .json or .json.gz; nsys: one .sqlite)")
      ->required();
  sub->add_option("--db", a->db, "SQLite store")->capture_default_str();
  sub->add_flag("--json", a->json, "print the stored run as one JSON object");
}

namespace {

Result<ImportedTrace> Import(const ImportArgs& a) {
  if (a.format == "kineto") return ImportKineto(a.files);
  if (a.format == "nsys") {
    if (a.files.size() != 1) return Status::Invalid("import nsys takes one .sqlite file");
    return ImportNsys(a.files[0]);
  }
  return Status::Invalid("unknown trace format '" + OneLine(a.format) + "' (known: kineto, nsys)");
}

std::string LaneKind(const std::string& name) {
  if (name == "cpu runtime") return "cpu";
  if (name == "nvtx") return "marker";
  return "gpu stream";
}

// One run for the whole trace: every rank's events, lanes and HTA figures.
struct ImportedRun {
  RunRecord record;
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
};

Result<ImportedRun> ToRun(const ImportArgs& a, ImportedTrace trace) {
  ImportedRun out;
  RunRecord& r = out.record;
  r.source = "imported";
  r.backend = trace.format;
  r.has_workload = false;
  r.config = nlohmann::json::object();
  r.notes["files"] = a.files;
  r.notes["hta"] = nlohmann::json::array();
  std::set<int> seen;
  int world = 0, iterations = 0;
  for (ImportedRank& rank : trace.ranks) {
    if (!seen.insert(rank.rank).second) {
      return Status::Invalid("two traces claim rank " + std::to_string(rank.rank) + "; give one file per rank");
    }
    world = std::max(world, rank.world);
    const char* unit = trace.format == "kineto" ? "us" : "ns";
    r.notes["hta"].push_back({{"rank", rank.rank},
                              {"device", rank.device},
                              {"unit", unit},
                              {"comm", rank.hta.comm},
                              {"compute", rank.hta.compute},
                              {"overlap", rank.hta.overlap},
                              {"overlap_pct", rank.hta.overlap_pct},
                              {"idle_pct", rank.hta.idle_pct},
                              {"compute_pct", rank.hta.compute_pct}});
    for (const ImportedLane& l : rank.lanes) out.lanes.push_back({rank.rank, l.lane, l.name, LaneKind(l.name)});
    for (Event& e : rank.events) {
      iterations = std::max(iterations, e.iteration + 1);
      out.events.push_back(std::move(e));
    }
  }
  r.workload.tp = world;
  r.iterations = iterations;
  r.figures = FiguresOf(ComputeRunMetrics(out.events), std::nullopt);
  return out;
}

}  // namespace

int ExecuteImport(const ImportArgs& a) {
  if (a.format != "kineto" && a.format != "nsys") {
    return ReportError("import",
                       Status::Invalid("unknown trace format '" + OneLine(a.format) + "' (known: kineto, nsys)"));
  }
  for (const std::string& f : a.files) {
    std::error_code ec;
    if (std::filesystem::is_directory(f, ec)) {
      return ReportError("import", Status::Invalid("'" + OneLine(f) + "' is a directory, not a trace file"));
    }
  }
  if (Status s = CheckStoreWritable(a.db); !s.ok()) return ReportError("import", s);
  auto trace = Import(a);
  if (!trace.ok()) return ReportError("import", trace.status());
  auto run = ToRun(a, std::move(*trace));
  if (!run.ok()) return ReportError("import", run.status());
  auto store = OpenStoreForWrite(a.db);
  if (!store.ok()) return ReportError("import", store.status());
  auto id = (*store)->WriteRun(MetaOf(run->record), run->lanes, run->events, RowsOf(run->record));
  if (!id.ok()) return ReportError("import", id.status());
  run->record.run_id = *id;
  std::cout << (a.json ? RunJson(run->record).dump(2) + "\n" : RunTable(run->record));
  return kExitOk;
}

}  // namespace braid::cli
