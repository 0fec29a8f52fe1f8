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
  std::string out = "\ntraining step (sim): " + std::to_string(f.layers) + " blocks, TP " + std::to_string(r.block.tp) +
                    " x DP " + std::to_string(r.dp.dp) + ", " + r.dp.Describe() + "\n";
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

namespace {

std::string StepLine(const char* what, const TrainStepFigures& f, double base_ns) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-34s %10s  %9.0f tokens/s  MFU %5.1f %%  DP exposed %s  %.3fx\n", what,
                Ms(f.step_ns).c_str(), f.tokens_per_s, 100.0 * f.mfu, Ms(f.schedule.dp_exposed_ns).c_str(),
                f.step_ns > 0 ? base_ns / f.step_ns : 0.0);
  return line;
}

nlohmann::json StepFigures(const TrainStepFigures& f) {
  return {{"step_ns", f.step_ns},
          {"tokens_per_s", f.tokens_per_s},
          {"mfu", f.mfu},
          {"block_ns", f.block_ns},
          {"dp_exposed_ns", f.schedule.dp_exposed_ns},
          {"dp_tail_ns", f.schedule.tail_ns}};
}

}  // namespace

std::string DpTuneTable(const DpTuneReport& r) {
  const TrainStepFigures& base = r.serial_tp;
  std::string out = "\ntraining step (sim): " + std::to_string(base.layers) + " blocks, TP " +
                    std::to_string(r.request.block.tp) + " x DP " + std::to_string(r.request.dp.dp) + ", zero " +
                    std::string(ZeroStageName(r.request.dp.zero)) + "; DP group: " + base.dp_link +
                    "; speed-up vs the first line\n";
  out += StepLine("serial TP GEMMs, Megatron DP", base, base.step_ns);
  out += StepLine("tuned TP GEMMs, Megatron DP", r.tuned.megatron_figures, base.step_ns);
  out += StepLine("tuned TP GEMMs, tuned DP", r.tuned.best_figures, base.step_ns);
  out += "  Megatron DP: " + r.tuned.megatron.Describe() + "\n";
  out += "  tuned DP:    " + r.tuned.best.Describe() + " (best of " + std::to_string(r.tuned.candidates) + ")\n";
  std::string missing;
  out += "  Megatron-LM: " + MegatronDpArgs(r.tuned.best, &missing) + "\n";
  if (!missing.empty()) out += "  no Megatron-LM counterpart: " + missing + "\n";
  return out;
}

nlohmann::json DpTuneJson(const DpTuneReport& r) {
  std::string missing;
  const std::string args = MegatronDpArgs(r.tuned.best, &missing);
  nlohmann::json ranked = nlohmann::json::array();
  for (const auto& [setup, ns] : r.tuned.ranked) ranked.push_back({{"setup", setup.Describe()}, {"step_ns", ns}});
  return {{"layers", r.serial_tp.layers},
          {"tp", r.request.block.tp},
          {"dp", r.request.dp.dp},
          {"zero", std::string(ZeroStageName(r.request.dp.zero))},
          {"dp_link", r.serial_tp.dp_link},
          {"serial_tp_megatron_dp", StepFigures(r.serial_tp)},
          {"tuned_tp_megatron_dp", StepFigures(r.tuned.megatron_figures)},
          {"tuned", StepFigures(r.tuned.best_figures)},
          {"megatron_setup", r.tuned.megatron.Describe()},
          {"tuned_setup", r.tuned.best.Describe()},
          {"candidates", r.tuned.candidates},
          {"ranked", ranked},
          {"megatron_args", args},
          {"no_megatron_counterpart", missing}};
}

}  // namespace braid::cli
