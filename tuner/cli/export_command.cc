#include "export_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "braid/chrome_trace.h"
#include "braid/run_record.h"
#include "braid/store.h"
#include "cli_exit.h"
#include "store_access.h"

namespace braid::cli {

void AddExportOptions(CLI::App* sub, ExportArgs* a) {
  sub->add_option("--db", a->db, "SQLite store")->capture_default_str();
  sub->add_option("--run", a->run, "run id")->required();
  sub->add_option("--format", a->format, "chrome (Chrome Trace Event / Perfetto JSON)")->capture_default_str();
  sub->add_option("-o,--output", a->out, "output file")->required();
}

namespace {

// Writes beside the target and renames, so a failed export never leaves a
// half-written file where a good one was.
Status WriteAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return Status::Invalid("cannot write '" + OneLine(path) + "': " + std::strerror(errno));
    }
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return Status::Internal("cannot write '" + OneLine(path) + "': " + std::strerror(errno));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return Status::Invalid("cannot write '" + OneLine(path) + "': " + ec.message());
  }
  return Status::Ok();
}

}  // namespace

int ExecuteExport(const ExportArgs& a) {
  if (a.format != "chrome") {
    return ReportError("export", Status::Invalid("unknown --format '" + OneLine(a.format) + "' (known: chrome)"));
  }
  auto store = OpenStoreForRead(a.db);
  if (!store.ok()) return ReportError("export", store.status());
  // The record as every reader sees it: a damaged run is refused here, as
  // `report` refuses it, before anything is written.
  auto run = LoadRunRecord(**store, a.run);
  if (!run.ok()) return ReportError("export", run.status());
  auto events = (*store)->LoadEvents(a.run);
  if (!events.ok()) return ReportError("export", events.status());
  auto lanes = (*store)->LoadLanes(a.run);
  if (!lanes.ok()) return ReportError("export", lanes.status());

  ChromeTraceInput in;
  in.title = "braid run " + std::to_string(a.run) + " (" + run->backend + ")";
  for (const LaneInfo& l : *lanes) in.lanes.push_back({l.rank, l.lane, l.name});
  in.events = std::move(*events);
  const size_t count = in.events.size();
  if (Status s = WriteAtomically(a.out, ChromeTrace(in).dump()); !s.ok()) return ReportError("export", s);
  std::cout << "wrote " << count << " events of run " << a.run << " to " << a.out << "\n";
  return kExitOk;
}

}  // namespace braid::cli
