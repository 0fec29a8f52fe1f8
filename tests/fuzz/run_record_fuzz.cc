// libFuzzer target: bytes = a stored run's config JSON, a newline, and its
// notes JSON (what a damaged or hand-edited store holds). Reading the record
// must never crash or throw; a record that reads must print as JSON and as
// a table without throwing (cli/run_report.cc), and its `hta` and `tuner`
// notes decode or are refused in one line; the config bytes are also read as
// a tuning session's options.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/notes_keys.h"
#include "braid/run_record.h"
#include "braid/session_options.h"
#include "fuzz_checks.h"
#include "run_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t cut = bytes.find('\n');
  braid::StoredRun run;
  run.id = 7;
  run.meta.source = size % 2 ? "measured" : "imported";
  run.meta.backend = "sim";
  run.meta.workload = braid::Workload{braid::Op::kGemmRs, 64, 64, 64, braid::DType::kBf16, 2};
  run.meta.config_json = std::string(bytes.substr(0, cut));
  run.meta.notes_json = cut == std::string_view::npos ? "{}" : std::string(bytes.substr(cut + 1));
  std::vector<braid::MetricRow> rows = {{0, 0, "makespan_ns", 100},       {0, 1, "makespan_ns", 120},
                                        {-1, -1, "compute_alone_ns", 50}, {-1, -1, "comm_alone_ns", 60},
                                        {-1, -1, "efficiency_p50", 0.5},  {-1, -1, "efficiency_p99", 0.5}};
  braid::Result<braid::RunRecord> rec = braid::RecordOfStored(run, rows);
  if (!rec.ok()) {
    const std::string& m = rec.status().message();
    braid::fuzz::Require(m.find('\n') == std::string::npos, "one-line error");
    braid::fuzz::Require(m.rfind("damaged store: run 7 has", 0) == 0, "error names the run");
    return 0;
  }
  // The notes' `hta` and `tuner` readers and the session options' decoder
  // take the same damaged text: refused in one line, never thrown.
  for (const braid::Status& s :
       {braid::DecodeHtaNotes(rec->notes, "run 7").status(), braid::DecodeTunerNote(rec->notes, "run 7").status(),
        braid::DecodeSessionOptions(run.meta.config_json, "run 7").status()}) {
    if (s.ok() || s.code() == braid::StatusCode::kNotFound) continue;
    braid::fuzz::Require(s.message().find('\n') == std::string::npos, "one-line error");
    braid::fuzz::Require(s.message().rfind("damaged store: run 7 has", 0) == 0, "error names the run");
  }
  const std::string json = braid::RunJson(*rec).dump();
  braid::fuzz::Require(!json.empty(), "prints as JSON");
  braid::fuzz::Require(!braid::cli::RunTable(*rec).empty(), "prints as a table");
  return 0;
}
