#include "calibrate_measure.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "braid/gpu_calibration.h"
#include "braid/sim_kernel_log.h"
#include "cli_exit.h"
#include "kernel_choice_output.h"

namespace braid::cli {

namespace {

// A line per stage on stderr: redrawn with a bar on a terminal, once at the
// stage's end in a pipe.
class StageLines {
 public:
  explicit StageLines(bool tty) : tty_(tty) {}
  void operator()(const measure::StageProgress& p) const {
    const bool done = p.done == p.total;
    if (tty_) {
      constexpr int kWidth = 24;
      const int filled = p.total > 0 ? kWidth * p.done / p.total : kWidth;
      std::fprintf(stderr, "\r\033[K%-26s [%s%s] %d/%d  %.1fs%s", p.stage.c_str(),
                   std::string(size_t(filled), '#').c_str(), std::string(size_t(kWidth - filled), '.').c_str(), p.done,
                   p.total, p.elapsed_s, done ? "\n" : "");
    } else if (done) {
      std::fprintf(stderr, "%s: %d/%d measured in %.1fs\n", p.stage.c_str(), p.done, p.total, p.elapsed_s);
    }
    std::fflush(stderr);
  }

 private:
  bool tty_;
};

nlohmann::json ErrorsJson(const measure::FileErrors& f) {
  return {{"mean_abs_pct", f.mean_abs_pct}, {"max_abs_pct", f.max_abs_pct}, {"off", f.off}};
}

void PrintResult(const CalibrateArgs& a, const measure::Measurements& m, const std::string& dir,
                 const measure::MeasuredFit& fit) {
  const auto before = measure::ErrorsByFile(fit.fit.before, m);
  const auto after = measure::ErrorsByFile(fit.fit.after, m);
  sim::MeasuredBoard logged;
  logged.kernels = m.kernels;
  const auto choice = sim::CompareKernelChoice(fit.fit.gpu, logged);
  if (a.json) {
    nlohmann::json files = nlohmann::json::array(), params = nlohmann::json::array();
    for (size_t i = 0; i < before.size(); ++i) {
      files.push_back({{"file", before[i].file},
                       {"rows", before[i].rows},
                       {"before", ErrorsJson(before[i])},
                       {"after", ErrorsJson(after[i])}});
    }
    for (const auto& p : fit.fit.parameters)
      params.push_back({{"name", p.name}, {"before", p.before}, {"after", p.after}});
    nlohmann::json fused{{"measured", !m.fused.empty()}, {"points", m.fused.size()}};
    if (!m.fused.empty()) {
      fused["engine"] = std::string(NameIn(kFusedEngineNames, m.fused.front().engine));
      fused["gemm_efficiency"] = fit.fit.gpu.fused_gemm_efficiency;
      fused["transfer_gbs_per_sm"] = fit.fit.gpu.fused_sm_transfer_gbs;
    }
    std::cout << nlohmann::json{{"device", m.device},
                                {"sm_count", m.sm_count},
                                {"csv_dir", dir},
                                {"gpu_out", a.gpu_out},
                                {"launch_gaps_ns",
                                 {{"host_same_stream", m.host_same_stream_ns},
                                  {"host_cross_stream", m.host_cross_stream_ns},
                                  {"graph_same_stream", m.graph_same_stream_ns},
                                  {"graph_cross_stream", m.graph_cross_stream_ns}}},
                                {"fused", fused},
                                {"kernel_choice", KernelChoiceJson(choice)},
                                {"kernel_log_note", m.kernels_note},
                                {"parameters", params},
                                {"files", files},
                                {"ok", fit.fit.after.ok()}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("wrote the measurements to %s\n", dir.c_str());
  if (!m.fused.empty()) {
    std::printf("fused kernel (%s engine, %zu points): GEMM efficiency %.3f, %.1f GB/s per comm SM\n",
                std::string(NameIn(kFusedEngineNames, m.fused.front().engine)).c_str(), m.fused.size(),
                fit.fit.gpu.fused_gemm_efficiency, fit.fit.gpu.fused_sm_transfer_gbs);
  } else {
    std::printf("fused kernel: not measured; its figures in the GPU file stay %s's assumptions\n", a.gpu.c_str());
  }
  std::printf("launch gaps (median ns): C++ launcher %.0f on one stream, %.0f across an event; CUDA graph %.0f, %.0f\n",
              m.host_same_stream_ns, m.host_cross_stream_ns, m.graph_same_stream_ns, m.graph_cross_stream_ns);
  std::printf("\nfitted parameters\n");
  for (const auto& p : fit.fit.parameters) std::printf("  %-28s %10.4g -> %10.4g\n", p.name.c_str(), p.before, p.after);
  std::printf("\n|error| %% of the model per file: %s before, the fitted file after\n", a.gpu.c_str());
  std::printf("%-26s %5s %17s %17s\n", "file", "rows", "before mean/max", "after mean/max");
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i].rows == 0) continue;
    std::printf("%-26s %5d %8.1f /%6.1f %8.1f /%6.1f%s\n", before[i].file.c_str(), before[i].rows,
                before[i].mean_abs_pct, before[i].max_abs_pct, after[i].mean_abs_pct, after[i].max_abs_pct,
                after[i].off > 0 ? ("  " + std::to_string(after[i].off) + " OFF").c_str() : "");
  }
  if (!choice.empty()) {
    std::printf("\nthe fitted file's kernel choice beside cuBLASLt's (gemm_kernels.csv)\n%s",
                sim::FormatKernelChoiceTable(choice).c_str());
  } else if (!m.kernels_note.empty()) {
    std::printf("\n%s\n", m.kernels_note.c_str());
  }
  std::printf("wrote %s\n", a.gpu_out.c_str());
}

}  // namespace

int CalibrateMeasure(const CalibrateArgs& a) {
  if (a.gpu_out.empty()) return ReportError("calibrate", Status::Invalid("--measure needs --gpu-out FILE.toml"));
  measure::CalibrationRequest request;
  request.gpu_out = a.gpu_out;
  request.csv_dir = a.csv_dir;
  request.base_gpu = a.gpu;
  request.quick = a.quick;
  auto engine = ParseNamed(kFusedEngineNames, "--fused-engine", a.fused_engine.value_or("tasks"));
  if (!engine.ok()) return ReportError("calibrate", engine.status());
  request.fused_engine = *engine;
  measure::CalibrationProgress progress;
  if (!a.json) {
    progress.planned = [](const measure::MeasureDevice& d, const measure::MeasurePlan& plan) {
      std::printf(
          "measuring %s (%d SMs): %zu GEMM shapes; %zu shapes beside 2 holders x %zu held-SM counts; %zu copy SM "
          "counts; a copy-engine copy; 4 launch gaps; the fused kernel (%s engine) on %zu shapes x %zu comm-SM "
          "budgets\n",
          d.Name().c_str(), d.SmCount(), plan.gemm_shapes.size(), plan.held_shapes.size(), plan.held_sms.size(),
          plan.copy_sms.size(), std::string(NameIn(kFusedEngineNames, plan.fused_engine)).c_str(),
          plan.fused_shapes.size(), plan.fused_comm_sms.size());
      std::fflush(stdout);
    };
  }
  if (!a.no_progress) {
    progress.stage = StageLines(::isatty(STDERR_FILENO) == 1);
    progress.fitting = [&a] { std::fprintf(stderr, "fitting %s to the measurements\n", a.gpu.c_str()); };
  }
  auto c = measure::CalibrateDevice(
      request, [] { return measure::OpenRealMeasureDevice(0); }, progress);
  if (!c.ok()) {
    return ReportError("calibrate", c.status());  // `gpu_out` is printed as --gpu-out
  }
  PrintResult(a, c->measurements, c->csv_dir, c->fit);
  return kExitOk;
}

}  // namespace braid::cli
