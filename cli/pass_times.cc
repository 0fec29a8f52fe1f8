#include "pass_times.h"

#include <algorithm>
#include <utility>

#include "braid/stored_text.h"

namespace braid::cli {

namespace {

// op name -> pass, from the layer note (fields of the wrong type skipped).
std::map<std::string, std::string> PassOfOps(const nlohmann::json& notes) {
  std::map<std::string, std::string> out;
  const nlohmann::json* layer = LayerNote(notes);
  if (layer == nullptr) return out;
  const auto ops = layer->find("ops");
  if (ops == layer->end() || !ops->is_array()) return out;
  for (const nlohmann::json& o : *ops) {
    if (!o.is_object()) continue;
    const auto name = o.find("name"), pass = o.find("pass");
    if (name == o.end() || pass == o.end() || !name->is_string() || !pass->is_string()) continue;
    out[name->get<std::string>()] = pass->get<std::string>();
  }
  return out;
}

// The pass of the op that prefixes `step` ("<op>.<step>"), longest first.
const std::string* PassOfStep(const std::string& step, const std::map<std::string, std::string>& passes) {
  for (size_t dot = step.rfind('.'); dot != std::string::npos && dot > 0; dot = step.rfind('.', dot - 1)) {
    const auto it = passes.find(step.substr(0, dot));
    if (it != passes.end()) return &it->second;
  }
  return nullptr;
}

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
  const std::map<std::string, std::string> passes = PassOfOps(notes);
  std::map<std::string, double> out;
  if (passes.empty()) return out;
  // (pass, iteration, rank) -> the spans of its steps.
  std::map<std::string, std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>>> spans;
  for (const Event& e : events) {
    const std::string* pass = PassOfStep(e.name, passes);
    if (pass != nullptr && e.end_ns > e.start_ns) spans[*pass][{e.iteration, e.rank}].push_back({e.start_ns, e.end_ns});
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
