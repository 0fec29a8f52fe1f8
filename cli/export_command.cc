#include "export_command.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

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

// What will be exported: the run's events, or one iteration's (counting
// them is a scan of the run's rows, so it is done once, here). NotFound
// names the stored iterations when `iteration` has no events.
Result<EventExtent> ExtentToExport(const Store& store, int64_t run, std::optional<int> iteration) {
  BRAID_ASSIGN_OR_RETURN(EventExtent extent, store.GetEventExtent(run, iteration));
  if (!iteration || extent.count > 0) return extent;
  BRAID_ASSIGN_OR_RETURN(EventExtent all, store.GetEventExtent(run));
  const std::string have =
      all.count == 0 ? "no events"
                     : "iterations " + std::to_string(all.first_iteration) + ".." + std::to_string(all.last_iteration);
  return Status::NotFound("run " + std::to_string(run) + " has no iteration " + std::to_string(*iteration) + " (" +
                          have + ")");
}

// The trace streamed from the store to the output: batches of events go
// through the Chrome writer, the gzip stream when the name asks for it, and
// the atomic writer, so that memory does not grow with the run. Any error
// drops the temporary; the target is replaced only at the commit.
Result<int64_t> StreamTrace(const Store& store, const ExportArgs& a, std::optional<int> iteration,
                            const EventExtent& extent, const std::string& title) {
  BRAID_ASSIGN_OR_RETURN(std::vector<LaneInfo> lanes, store.LoadLanes(a.run));
  std::vector<TraceLane> names;
  for (const LaneInfo& l : lanes) names.push_back({l.rank, l.lane, l.name});
  BRAID_ASSIGN_OR_RETURN(auto file, AtomicFileWriter::Open(a.out, /*allow_stdout=*/true));
  std::unique_ptr<GzipStream> gz;
  if (NamesGzipFile(a.out)) {
    BRAID_ASSIGN_OR_RETURN(gz, GzipStream::Start([&](std::string_view piece) { return file->Append(piece); }));
  }
  ChromeTraceWriter trace([&](std::string_view piece) { return gz ? gz->Write(piece) : file->Append(piece); },
                          extent.first_start_ns);
  BRAID_RETURN_IF_ERROR(store.ScanEvents(a.run,
                                         {.iteration = iteration, .batch = size_t(1) << 14, .ranks = std::nullopt},
                                         [&](std::span<const Event> batch) { return trace.Add(batch); }));
  BRAID_RETURN_IF_ERROR(trace.Finish(title, names));
  if (gz) BRAID_RETURN_IF_ERROR(gz->Finish());
  BRAID_RETURN_IF_ERROR(file->Commit());
  return trace.slices();
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
  std::optional<int> iteration;
  if (a.iteration) iteration = int(*a.iteration);
  auto extent = ExtentToExport(**store, a.run, iteration);
  if (!extent.ok()) return ReportError("export", extent.status());
  std::string title = "braid run " + std::to_string(a.run) + " (" + run->backend + ")";
  if (a.iteration) title += ", iteration " + std::to_string(*a.iteration);
  Result<int64_t> count = Status::Internal("not exported");
  try {
    count = StreamTrace(**store, a, iteration, *extent, title);
  } catch (const std::bad_alloc&) {
    count = Status::Internal("out of memory while exporting run " + std::to_string(a.run));
  }
  if (!count.ok()) return ReportError("export", count.status());
  // With -o - the trace is standard output: the note goes to stderr.
  (a.out == "-" ? std::cerr : std::cout) << "wrote " << *count << " events of run " << a.run
                                         << (a.iteration ? " iteration " + std::to_string(*a.iteration) : "") << " to "
                                         << (a.out == "-" ? "standard output" : a.out) << "\n";
  return kExitOk;
}

}  // namespace braid::cli
