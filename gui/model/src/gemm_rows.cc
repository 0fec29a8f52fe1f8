#include "braid/view/gemm_rows.h"

namespace braid::view {

std::vector<GemmOverlapRow> GemmRowsOf(const Timeline& t) {
  std::vector<Event> events;
  std::vector<TraceLane> lanes;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const TimelineRow& row = t.rows[r];
    lanes.push_back({row.rank, row.lane, row.name});
    for (size_t i = 0; i < row.events.size(); ++i) events.push_back(EventOf(t, {r, i}));
  }
  return AnalyzeGemmOverlap(events, lanes).rows;
}

std::map<std::pair<int, int64_t>, std::string> GemmNotesOf(const std::vector<GemmOverlapRow>& rows) {
  std::map<std::pair<int, int64_t>, std::string> out;
  for (const GemmOverlapRow& r : rows) {
    // The layer and pass where the trace names them, else the range's label.
    const std::string& name = r.key.empty() ? r.label : r.key;
    std::string note = name.empty() ? std::string() : name + " · ";
    note += std::string(OverlapMethodName(r.method)) + " · " + std::string(GemmVerdictName(r.verdict));
    out[{r.rank, r.start_ns}] = std::move(note);
  }
  return out;
}

bool IsImportedBackend(const std::string& backend) { return backend == "kineto" || backend == "nsys"; }

}  // namespace braid::view
