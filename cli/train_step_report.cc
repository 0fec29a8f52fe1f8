#include "train_step_report.h"

#include <cstdio>

namespace braid::cli {

namespace {

std::string Ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  return buf;
}

}  // namespace

std::string TrainStepTable(const TrainStepRequest& r, const TrainStepFigures& f) {
  char line[512];
  std::string out = "\ntraining step (sim): " + std::to_string(f.layers) + " blocks, TP " +
                    std::to_string(r.block.tp) + " x DP " + std::to_string(r.dp.dp) + ", " + r.dp.Describe() + "\n";
  std::snprintf(line, sizeof line, "  block            %s (forward %s, backward %s; TP exposed comm %s)\n",
                Ms(f.block_ns).c_str(), Ms(f.forward_ns).c_str(), Ms(f.backward_ns).c_str(),
                Ms(f.tp_exposed_comm_ns).c_str());
  out += line;
  if (r.dp.dp > 1) {
    out += "  DP group links   " + f.dp_link + "\n";
    std::snprintf(line, sizeof line,
                  "  DP collectives   %d gradient, %d gather: %s of DP comm, %s exposed (tail %s); compute x%.3f "
                  "beside them\n",
                  f.schedule.grad_collectives, f.schedule.gather_collectives, Ms(f.schedule.dp_comm_ns).c_str(),
                  Ms(f.schedule.dp_exposed_ns).c_str(), Ms(f.schedule.tail_ns).c_str(), f.stretch);
    out += line;
    for (const auto& [name, ns] : f.decomposed_ns) {
      out += "    decomposed " + name + ": " + Ms(ns) + " (wgrad GEMM with its DP reduction)\n";
    }
  }
  std::snprintf(line, sizeof line, "  step             %s; %.0f tokens/s; MFU %.1f %% (blocks' FLOPs only)\n",
                Ms(f.step_ns).c_str(), f.tokens_per_s, 100.0 * f.mfu);
  out += line;
  return out;
}

nlohmann::json TrainStepJson(const TrainStepRequest& r, const TrainStepFigures& f) {
  nlohmann::json spans = nlohmann::json::array();
  for (const DpCollectiveSpan& s : f.schedule.spans) {
    spans.push_back({{"name", s.name},
                     {"bytes", s.bytes},
                     {"queued_ns", s.queued_ns},
                     {"start_ns", s.start_ns},
                     {"end_ns", s.end_ns}});
  }
  nlohmann::json decomposed = nlohmann::json::object();
  for (const auto& [name, ns] : f.decomposed_ns) decomposed[name] = ns;
  return {{"layers", f.layers},
          {"tp", r.block.tp},
          {"dp", r.dp.dp},
          {"zero", std::string(ZeroStageName(r.dp.zero))},
          {"schedule", std::string(DpScheduleName(r.dp.schedule))},
          {"setup", r.dp.Describe()},
          {"bucket_params", f.bucket_params},
          {"block_ns", f.block_ns},
          {"forward_ns", f.forward_ns},
          {"backward_ns", f.backward_ns},
          {"tp_exposed_comm_ns", f.tp_exposed_comm_ns},
          {"dp_link", f.dp_link},
          {"dp_comm_ns", f.schedule.dp_comm_ns},
          {"dp_exposed_ns", f.schedule.dp_exposed_ns},
          {"dp_tail_ns", f.schedule.tail_ns},
          {"grad_collectives", f.schedule.grad_collectives},
          {"gather_collectives", f.schedule.gather_collectives},
          {"compute_stretch", f.stretch},
          {"decomposed_ns", decomposed},
          {"step_ns", f.step_ns},
          {"tokens_per_s", f.tokens_per_s},
          {"mfu", f.mfu},
          {"dp_collectives", spans}};
}

}  // namespace braid::cli
