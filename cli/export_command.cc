#include "export_command.h"

#include <algorithm>
#include <cstdint>
#include <iostream>

#include "braid/chrome_trace.h"
#include "braid/gzip_bytes.h"
#include "braid/run_record.h"
#include "braid/safe_write.h"
#include "braid/store.h"
#include "cli_exit.h"
#include "store_access.h"

namespace braid::cli {

void AddExportOptions(CLI::App* sub, ExportArgs* a) {
  sub->add_option("--db", a->db, "SQLite store")->capture_default_str();
  sub->add_option("--run", a->run, "run id")->required();
  sub->add_option("--iteration", a->iteration, "only this timed iteration's events (default: all)");
  sub->add_option("--format", a->format, "chrome (Chrome Trace Event / Perfetto JSON)")->capture_default_str();
  sub->add_option("-o,--output", a->out,
                  "output file (written atomically; gzip-compressed when it ends in .gz; - for stdout)")
      ->required();
}

namespace {

// Everything about the flags and the output path, before the store is read.
Status CheckExportArgs(const ExportArgs& a) {
  if (a.format != "chrome") return Status::Invalid("unknown --format '" + OneLine(a.format) + "' (known: chrome)");
  if (a.run < 1) return Status::Invalid("--run must be a run id, 1 or more (got " + std::to_string(a.run) + ")");
  if (a.iteration && (*a.iteration < 0 || *a.iteration > INT32_MAX)) {
    return Status::Invalid("--iteration must be a timed iteration, 0 or more (got " + std::to_string(*a.iteration) +
                           ")");
  }
  if (a.out == "-") return Status::Ok();
  auto target = ResolveWriteTarget(a.out);
  return target.ok() ? Status::Ok() : target.status();
}

// Keeps the events of one iteration; NotFound naming the stored ones when
// there are none.
Status KeepIteration(std::vector<Event>& events, int iteration, int64_t run) {
  int lo = 0, hi = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    lo = i == 0 ? events[i].iteration : std::min(lo, events[i].iteration);
    hi = i == 0 ? events[i].iteration : std::max(hi, events[i].iteration);
  }
  const bool any = !events.empty();
  std::erase_if(events, [&](const Event& e) { return e.iteration != iteration; });
  if (!events.empty()) return Status::Ok();
  const std::string have = !any ? "no events" : "iterations " + std::to_string(lo) + ".." + std::to_string(hi);
  return Status::NotFound("run " + std::to_string(run) + " has no iteration " + std::to_string(iteration) + " (" +
                          have + ")");
}

}  // namespace

int ExecuteExport(const ExportArgs& a) {
  if (Status s = CheckExportArgs(a); !s.ok()) return ReportError("export", s);
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
  if (a.iteration) {
    if (Status s = KeepIteration(*events, int(*a.iteration), a.run); !s.ok()) return ReportError("export", s);
  }

  ChromeTraceInput in;
  in.title = "braid run " + std::to_string(a.run) + " (" + run->backend + ")";
  if (a.iteration) in.title += ", iteration " + std::to_string(*a.iteration);
  for (const LaneInfo& l : *lanes) in.lanes.push_back({l.rank, l.lane, l.name});
  in.events = std::move(*events);
  const size_t count = in.events.size();
  std::string bytes = ChromeTrace(in).dump();
  if (NamesGzipFile(a.out)) {
    auto gz = GzipBytes(bytes);
    if (!gz.ok()) return ReportError("export", gz.status());
    bytes = std::move(*gz);
  }
  if (Status s = WriteFileAtomically(a.out, bytes, /*allow_stdout=*/true); !s.ok()) return ReportError("export", s);
  // With -o - the trace is standard output: the note goes to stderr.
  (a.out == "-" ? std::cerr : std::cout) << "wrote " << count << " events of run " << a.run
                                         << (a.iteration ? " iteration " + std::to_string(*a.iteration) : "") << " to "
                                         << (a.out == "-" ? "standard output" : a.out) << "\n";
  return kExitOk;
}

}  // namespace braid::cli
