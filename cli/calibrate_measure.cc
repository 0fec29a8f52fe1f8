#include "calibrate_measure.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "braid/safe_write.h"
#include "cli_exit.h"

namespace braid::cli {

namespace {

namespace fs = std::filesystem;

Status WritableDir(const std::string& flag, const std::string& path, const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::Invalid(flag + " '" + OneLine(path) + "': directory '" + OneLine(dir.string()) + "' does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid(flag + " '" + OneLine(path) + "': directory '" + OneLine(dir.string()) +
                           "' is not writable");
  }
  return Status::Ok();
}

fs::path ParentOf(const std::string& path) {
  const fs::path p = fs::path(path).parent_path();
  return p.empty() ? fs::path(".") : p;
}

// The resolved GPU file path; Invalid unless it can be written.
Result<std::string> CheckGpuOut(const std::string& path) {
  if (path.empty()) return Status::Invalid("--measure needs --gpu-out FILE.toml");
  if (path == "-") return Status::Invalid("--gpu-out: give a file, not '-'");
  auto target = ResolveWriteTarget(path);
  if (!target.ok()) return Status::Invalid("--gpu-out: " + target.status().message());
  BRAID_RETURN_IF_ERROR(WritableDir("--gpu-out", path, ParentOf(*target)));
  return *target;
}

Status CheckCsvDir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return Status::Invalid("--csv-dir '" + OneLine(dir) + "' is not a directory");
    if (::access(dir.c_str(), W_OK) != 0) return Status::Invalid("--csv-dir '" + OneLine(dir) + "' is not writable");
    return Status::Ok();
  }
  return WritableDir("--csv-dir", dir, ParentOf(dir));
}

// --csv-dir, created when missing, or a new folder beside the GPU file.
Result<std::string> MakeCsvDir(const std::string& csv_dir, const std::string& gpu_out) {
  std::error_code ec;
  if (!csv_dir.empty()) {
    if (!fs::exists(csv_dir, ec) && !fs::create_directory(csv_dir, ec)) {
      return Status::Internal("cannot create --csv-dir '" + OneLine(csv_dir) + "': " + ec.message());
    }
    return csv_dir;
  }
  std::string tmpl = (ParentOf(gpu_out) / (fs::path(gpu_out).stem().string() + "-measured-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::Internal("cannot create a folder for the CSVs beside '" + OneLine(gpu_out) + "'");
  }
  return tmpl;
}

// A line per stage on stderr: redrawn with a bar on a terminal, once at the
// stage's end in a pipe.
class StageLines {
 public:
  StageLines(bool tty, bool enabled) : tty_(tty), enabled_(enabled) {}
  void operator()(const measure::StageProgress& p) const {
    if (!enabled_) return;
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
  bool tty_, enabled_;
};

nlohmann::json ErrorsJson(const measure::FileErrors& f) {
  return {{"mean_abs_pct", f.mean_abs_pct}, {"max_abs_pct", f.max_abs_pct}, {"off", f.off}};
}

void PrintResult(const CalibrateArgs& a, const measure::Measurements& m, const std::string& dir,
                 const measure::MeasuredFit& fit) {
  const auto before = measure::ErrorsByFile(fit.fit.before, m);
  const auto after = measure::ErrorsByFile(fit.fit.after, m);
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
                                {"parameters", params},
                                {"files", files},
                                {"ok", fit.fit.after.ok()}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("wrote the measurements to %s\n", dir.c_str());
  if (!m.fused.empty()) {
    std::printf("fused kernel (%zu points): GEMM efficiency %.3f, %.1f GB/s per comm SM\n", m.fused.size(),
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
  std::printf("wrote %s\n", a.gpu_out.c_str());
}

}  // namespace

int CalibrateMeasure(const CalibrateArgs& a, const MeasureDeviceOpener& open_device) {
  // Bad input first: nothing is measured or written.
  auto gpu_out = CheckGpuOut(a.gpu_out);
  if (!gpu_out.ok()) return ReportError("calibrate", gpu_out.status());
  if (!a.csv_dir.empty()) {
    if (Status s = CheckCsvDir(a.csv_dir); !s.ok()) return ReportError("calibrate", s);
  }
  auto base = LoadGpu(a.gpu);
  if (!base.ok()) return ReportError("calibrate", base.status());
  auto device = open_device();
  if (!device.ok()) return ReportError("calibrate", Status::Unavailable(device.status().message()));
  measure::MeasureDevice& d = **device;
  const measure::MeasurePlan plan = measure::DefaultMeasurePlan(d.SmCount(), a.quick);
  if (!a.json) {
    std::printf(
        "measuring %s (%d SMs): %zu GEMM shapes; %zu shapes beside 2 holders x %zu held-SM counts; %zu copy SM "
        "counts; a copy-engine copy; 4 launch gaps; the fused kernel on %zu shapes x %zu comm-SM budgets\n",
        d.Name().c_str(), d.SmCount(), plan.gemm_shapes.size(), plan.held_shapes.size(), plan.held_sms.size(),
        plan.copy_sms.size(), plan.fused_shapes.size(), plan.fused_comm_sms.size());
    std::fflush(stdout);
  }
  auto dir = MakeCsvDir(a.csv_dir, *gpu_out);
  if (!dir.ok()) return ReportError("calibrate", dir.status());
  const StageLines lines(::isatty(STDERR_FILENO) == 1, !a.no_progress);
  auto m = measure::RunMeasurements(d, plan, std::cref(lines));
  if (!m.ok()) return ReportError("calibrate", Status::Internal(m.status().message()));
  if (Status s = measure::WriteMeasurementCsvs(*m, *dir); !s.ok()) return ReportError("calibrate", s);
  if (!a.no_progress) std::fprintf(stderr, "fitting %s to the measurements\n", a.gpu.c_str());
  sim::FitOptions fit_options;
  if (a.quick) fit_options.chains = 2, fit_options.iterations = 4000;
  auto fit = measure::FitMeasuredGpu(*base, *dir, *m, fit_options);
  if (!fit.ok()) return ReportError("calibrate", fit.status());
  if (Status s = WriteFileAtomically(*gpu_out, fit->toml); !s.ok()) return ReportError("calibrate", s);
  PrintResult(a, *m, *dir, *fit);
  return kExitOk;
}

}  // namespace braid::cli
