#include "pass_times.h"

#include <algorithm>
#include <utility>

#include "braid/stored_text.h"

namespace braid::cli {

namespace {

double UnionLength(std::vector<std::pair<int64_t, int64_t>>& spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0;
  int64_t start = 0, end = 0;
  bool open = false;
  for (const auto& [s, e] : spans) {
    if (open && s <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += double(end - start);
    start = s;
    end = e;
    open = true;
  }
  if (open) total += double(end - start);
  return total;
}

}  // namespace

std::map<std::string, double> PassBusyNs(const std::vector<Event>& events, const nlohmann::json& notes) {
  const std::vector<LayerOpNote> ops = LayerOpsOf(notes);
  std::map<std::string, double> out;
  if (ops.empty()) return out;
  // (pass, iteration, rank) -> the spans of its steps.
  std::map<std::string, std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>>> spans;
  for (const Event& e : events) {
    const LayerOpNote* op = OpOfStep(e.name, ops);
    if (op != nullptr && !op->pass.empty() && e.end_ns > e.start_ns) {
      spans[op->pass][{e.iteration, e.rank}].push_back({e.start_ns, e.end_ns});
    }
  }
  for (auto& [pass, by_iteration_rank] : spans) {
    std::map<int, double> worst;  // iteration -> worst rank's busy time
    for (auto& [key, list] : by_iteration_rank) {
      double& w = worst[key.first];
      w = std::max(w, UnionLength(list));
    }
    std::vector<double> values;
    for (const auto& [iteration, v] : worst) values.push_back(v);
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    out[pass] = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }
  return out;
}

}  // namespace braid::cli
