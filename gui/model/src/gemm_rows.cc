#include "braid/view/gemm_rows.h"

namespace braid::view {

std::vector<GemmOverlapRow> GemmRowsOf(const Timeline& t) {
  std::vector<Event> events;
  std::vector<TraceLane> lanes;
  for (const TimelineRow& row : t.rows) {
    lanes.push_back({row.rank, row.lane, row.name});
    for (const DrawnEvent& d : row.events) {
      Event e;
      e.rank = row.rank;
      e.lane = row.lane;
      e.iteration = d.iteration;
      e.kind = d.kind;
      e.name = t.NameOf(d);
      e.start_ns = d.start_ns;
      e.end_ns = d.end_ns;
      e.correlation = d.correlation;
      events.push_back(std::move(e));
    }
  }
  return AnalyzeGemmOverlap(events, lanes).rows;
}

std::map<std::pair<int, int64_t>, std::string> GemmNotesOf(const std::vector<GemmOverlapRow>& rows) {
  std::map<std::pair<int, int64_t>, std::string> out;
  for (const GemmOverlapRow& r : rows) {
    std::string note = r.label.empty() ? std::string() : r.label + " · ";
    note += std::string(OverlapMethodName(r.method)) + " · " + std::string(GemmVerdictName(r.verdict));
    out[{r.rank, r.start_ns}] = std::move(note);
  }
  return out;
}

bool IsImportedBackend(const std::string& backend) { return backend == "kineto" || backend == "nsys"; }

}  // namespace braid::view
