#include "calibrate_command.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "braid/gpu_files.h"
#include "braid/safe_write.h"
#include "braid/sim_calibration.h"
#include "braid/sim_error_band.h"
#include "braid/sim_fit.h"
#include "braid/sim_kernel_log.h"
#include "braid/sim_models.h"
#include "braid/size_parse.h"
#include "braid/topology_files.h"
#include "calibrate_measure.h"
#include "cli_exit.h"
#include "kernel_choice_output.h"

namespace braid::cli {

namespace {

// "(±12 %)" or "(±50 %, assumed)": the figure's expected relative error.
std::string BandText(double band, bool assumed) {
  char text[64];
  std::snprintf(text, sizeof text, "(±%.0f %%%s)", band * 100, assumed ? ", assumed" : "");
  return text;
}

int CalibrateGemm(const CalibrateArgs& a) {
  auto shape = sim::ParseGemmShape(a.gemm, "--gemm");
  if (!shape.ok()) return ReportError("calibrate", shape.status());
  auto dtype = ParseDType(a.dtype);
  if (!dtype.ok()) return ReportError("calibrate", dtype.status());
  auto gpu = LoadGpu(a.gpu);
  if (!gpu.ok()) return ReportError("calibrate", gpu.status());
  if (Status s = gpu->CheckSupports(*dtype); !s.ok()) return ReportError("calibrate", s);
  if (Status s = sim::CheckHeldSms(*gpu, a.held_sms); !s.ok()) return ReportError("calibrate", s);
  auto holder = sim::ParseSmHolder(a.holder);
  if (!holder.ok()) return ReportError("calibrate", holder.status());
  const sim::GemmPrediction p = sim::PredictGemmBesideHeldSms(*gpu, *shape, *dtype, a.held_sms, *holder);
  const GpuErrorBand& bands = gpu->error_band;
  const double band = a.held_sms > 0 ? bands.gemm_held_sms : bands.gemm;
  const bool assumed = a.held_sms > 0 ? bands.gemm_held_sms_assumed : bands.gemm_assumed;
  if (a.json) {
    nlohmann::json j{
        {"time_ns", p.time_ns}, {"tflops", p.tflops}, {"error_band", band}, {"error_band_assumed", assumed}};
    if (a.held_sms > 0) j["held_sms"] = a.held_sms, j["holder"] = a.holder;
    std::cout << j.dump() << "\n";
  } else {
    std::printf("%s %s gemm %lldx%lldx%lld", gpu->name.c_str(), std::string(DTypeName(*dtype)).c_str(),
                static_cast<long long>(shape->m), static_cast<long long>(shape->n), static_cast<long long>(shape->k));
    if (a.held_sms > 0) std::printf(" beside %d SMs held (%s)", a.held_sms, a.holder.c_str());
    std::printf(": %.1f us, %.1f TFLOP/s %s\n", p.time_ns / 1e3, p.tflops, BandText(band, assumed).c_str());
  }
  return kExitOk;
}

// nccl-tests' table: one row per size from -b to -e, times -f.
void PrintCollectiveSweep(const Topology& topo, CollectiveKind kind, const CalibrateArgs& a, int64_t lo, int64_t hi,
                          int tp) {
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json) {
    std::printf("# %s on %s, %d ranks (sim model)\n", a.collective.c_str(), topo.name.c_str(), tp);
    std::printf("%14s %14s %12s %10s %10s %7s %5s %4s\n", "size(B)", "count(bf16)", "time(us)", "algbw", "busbw",
                "±band", "algo", "SMs");
  }
  for (int64_t bytes = lo; bytes <= hi; bytes *= a.step_factor) {
    const sim::CollectivePrediction p = sim::PredictCollective(topo, kind, bytes, tp);
    if (a.json) {
      rows.push_back({{"bytes", bytes},
                      {"count", bytes / 2},
                      {"time_ns", p.time_ns},
                      {"algbw_gbps", p.algbw_gbps},
                      {"busbw_gbps", p.busbw_gbps},
                      {"error_band", topo.error_band.For(bytes)},
                      {"error_band_assumed", topo.error_band.AssumedFor(bytes)},
                      {"algo", sim::CollectiveAlgoName(p.algo)},
                      {"sms", p.sms}});
    } else {
      std::printf("%14lld %14lld %12.2f %10.2f %10.2f %6.0f%% %5s %4d\n", static_cast<long long>(bytes),
                  static_cast<long long>(bytes / 2), p.time_ns / 1e3, p.algbw_gbps, p.busbw_gbps,
                  topo.error_band.For(bytes) * 100, std::string(sim::CollectiveAlgoName(p.algo)).c_str(), p.sms);
    }
    if (bytes > hi / a.step_factor) break;
  }
  if (a.json) {
    std::cout << nlohmann::json{{"rows", rows}}.dump() << "\n";
  } else if (topo.error_band.collective_assumed || topo.error_band.collective_small_assumed) {
    std::printf("# ±band: assumed where %s's [error_band] gives none\n", topo.name.c_str());
  }
}

int CalibrateCollective(const CalibrateArgs& a) {
  auto kind = sim::ParseCollectiveKind(a.collective);
  if (!kind.ok()) return ReportError("calibrate", kind.status());
  const bool sweep = !a.min_bytes.empty() || !a.max_bytes.empty();
  if (sweep == !a.bytes.empty()) {
    return ReportError("calibrate", Status::Invalid("--collective needs --bytes SIZE or -b MIN -e MAX [-f FACTOR]"));
  }
  int64_t lo = 0, hi = 0;
  if (sweep) {
    if (a.min_bytes.empty() || a.max_bytes.empty()) {
      return ReportError("calibrate", Status::Invalid("a sweep needs both -b MIN and -e MAX"));
    }
    auto b = ParseSize(a.min_bytes, "-b");
    if (!b.ok()) return ReportError("calibrate", b.status());
    auto e = ParseSize(a.max_bytes, "-e");
    if (!e.ok()) return ReportError("calibrate", e.status());
    if (*b > *e) return ReportError("calibrate", Status::Invalid("-b must not exceed -e"));
    if (a.step_factor < 2) {
      return ReportError("calibrate", Status::Invalid("-f must be at least 2, got " + std::to_string(a.step_factor)));
    }
    lo = *b, hi = *e;
  } else {
    auto bytes = ParseSize(a.bytes, "--bytes");
    if (!bytes.ok()) return ReportError("calibrate", bytes.status());
    lo = hi = *bytes;
  }
  auto topo = LoadTopology(a.topology);
  if (!topo.ok()) return ReportError("calibrate", topo.status());
  auto ranks = sim::CollectiveRanks(*topo, a.tp);
  if (!ranks.ok()) return ReportError("calibrate", ranks.status());
  const int tp = *ranks;
  if (sweep) {
    PrintCollectiveSweep(*topo, *kind, a, lo, hi, tp);
    return kExitOk;
  }
  const sim::CollectivePrediction p = sim::PredictCollective(*topo, *kind, lo, tp);
  const double band = topo->error_band.For(lo);
  if (a.json) {
    std::cout << nlohmann::json{{"time_ns", p.time_ns},
                                {"algbw_gbps", p.algbw_gbps},
                                {"busbw_gbps", p.busbw_gbps},
                                {"error_band", band},
                                {"error_band_assumed", topo->error_band.AssumedFor(lo)},
                                {"algo", sim::CollectiveAlgoName(p.algo)},
                                {"sms", p.sms}}
                     .dump()
              << "\n";
  } else {
    std::printf("%s %lld bytes on %s (P=%d): %.1f us, algbw %.2f GB/s, busbw %.2f GB/s %s; %s on %d SMs\n",
                a.collective.c_str(), static_cast<long long>(lo), topo->name.c_str(), tp, p.time_ns / 1e3, p.algbw_gbps,
                p.busbw_gbps, BandText(band, topo->error_band.AssumedFor(lo)).c_str(),
                std::string(sim::CollectiveAlgoName(p.algo)).c_str(), p.sms);
  }
  return kExitOk;
}

nlohmann::json RowsJson(const std::vector<sim::CheckRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const sim::CheckRow& r : rows) {
    list.push_back({{"what", r.what},
                    {"measured", r.measured},
                    {"predicted", r.predicted},
                    {"error_pct", r.error_pct},
                    {"tolerance_pct", r.tolerance_pct},
                    {"source", r.source}});
  }
  return list;
}

// What the rows give as error bands beside what the files say
// (docs/simulator.md, "Error bands"): a file's figure under the rows' is
// one a user would read as better than it is.
struct BandRow {
  std::string file, field;
  double derived = 0, in_file = 0;
  int rows = 0;
};

Result<std::vector<BandRow>> BandRows(const std::optional<sim::DerivedGpuBand>& gpu_band, const GpuSpec* gpu) {
  std::vector<BandRow> out;
  if (gpu_band && gpu != nullptr) {
    if (gpu_band->gemm) out.push_back({gpu->name, "gemm", *gpu_band->gemm, gpu->error_band.gemm, gpu_band->gemm_rows});
    if (gpu_band->gemm_held_sms) {
      out.push_back(
          {gpu->name, "gemm_held_sms", *gpu_band->gemm_held_sms, gpu->error_band.gemm_held_sms, gpu_band->held_rows});
    }
  }
  BRAID_ASSIGN_OR_RETURN(auto collective, sim::DeriveCollectiveErrorBands());
  for (const sim::DerivedCollectiveBand& b : collective) {
    BRAID_ASSIGN_OR_RETURN(auto topo, LoadTopology(b.topology));
    if (b.collective) out.push_back({b.topology, "collective", *b.collective, topo.error_band.collective, b.rows});
    if (b.collective_small) {
      out.push_back(
          {b.topology, "collective_small", *b.collective_small, topo.error_band.collective_small, b.small_rows});
    }
  }
  return out;
}

int CalibrateCheck(const CalibrateArgs& a) {
  auto rows = sim::CheckCalibration();
  if (!rows.ok()) return ReportError("calibrate", rows.status());
  // The measured board's rows, when its folder is there.
  std::error_code ec;
  std::optional<sim::MeasuredCheck> measured;
  std::optional<sim::DerivedGpuBand> gpu_band;
  std::optional<GpuSpec> gpu;
  std::vector<sim::KernelChoiceRow> kernel_choice;  // gemm_kernels.csv's shapes
  if (std::filesystem::is_directory(a.measured, ec)) {
    auto loaded = LoadGpu(a.gpu);
    if (!loaded.ok()) return ReportError("calibrate", loaded.status());
    gpu = *loaded;
    auto board = sim::ReadMeasuredBoard(a.measured, *gpu);
    if (!board.ok()) return ReportError("calibrate", board.status());
    measured = sim::CheckMeasuredBoard(*gpu, *board);
    kernel_choice = sim::CompareKernelChoice(*gpu, *board);
    gpu_band = sim::DeriveGpuErrorBand(*gpu, *board);
  }
  auto bands = BandRows(gpu_band, gpu ? &*gpu : nullptr);
  if (!bands.ok()) return ReportError("calibrate", bands.status());
  int off = 0;
  for (const sim::CheckRow& r : *rows) off += !r.ok();
  if (measured) {
    for (const sim::CheckRow& r : measured->rows) off += !r.ok();
    off += measured->gemm_mean_abs_pct > sim::kGemmMeanTolerancePct;
  }
  if (a.json) {
    nlohmann::json j{{"points", RowsJson(*rows)}, {"ok", off == 0}};
    if (measured) {
      j["measured"] = {{"folder", a.measured},
                       {"rows", RowsJson(measured->rows)},
                       {"board_rate", measured->board_rate},
                       {"gemm_mean_abs_error_pct", measured->gemm_mean_abs_pct},
                       {"kernel_choice", KernelChoiceJson(kernel_choice)}};
    }
    j["error_bands"] = nlohmann::json::array();
    for (const BandRow& b : *bands) {
      j["error_bands"].push_back(
          {{"file", b.file}, {"field", b.field}, {"derived", b.derived}, {"in_file", b.in_file}, {"rows", b.rows}});
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "published figures (catalog/hardware/calibration_points.toml)\n" << sim::FormatCheckTable(*rows);
    if (measured) {
      std::printf("\nmeasured board (%s) on %s at this board's board_rate %.3f\n", a.measured.c_str(), a.gpu.c_str(),
                  measured->board_rate);
      std::cout << sim::FormatCheckTable(measured->rows);
      std::printf("gemm_bf16 mean |error| %.1f %% (tolerance %.0f %%)\n", measured->gemm_mean_abs_pct,
                  sim::kGemmMeanTolerancePct);
      if (!kernel_choice.empty()) {
        std::printf("\nkernel choice beside cuBLASLt's (gemm_kernels.csv)\n%s",
                    sim::FormatKernelChoiceTable(kernel_choice).c_str());
      }
    } else {
      std::printf("\nnote: %s is absent; the measured board's rows were not checked\n", a.measured.c_str());
    }
    std::printf("\nerror bands: 90th percentile of |error| over the rows, each predicted from the file as it is\n");
    std::printf("%-22s %-17s %5s %9s %9s\n", "file", "[error_band]", "rows", "derived", "in file");
    for (const BandRow& b : *bands) {
      std::printf("%-22s %-17s %5d %8.1f%% %8.1f%%%s\n", b.file.c_str(), b.field.c_str(), b.rows, b.derived * 100,
                  b.in_file * 100, b.in_file + 0.005 < b.derived ? "  UNDER" : "");
    }
  }
  std::cout.flush();
  if (off > 0) {
    return ReportError("calibrate", Status::Internal(std::to_string(off) + " checks are outside their tolerance"));
  }
  return kExitOk;
}

int CalibrateFit(const CalibrateArgs& a) {
  if (a.out.empty()) return ReportError("calibrate", Status::Invalid("--fit needs -o FILE.toml"));
  auto base = LoadGpu(a.gpu);
  if (!base.ok()) return ReportError("calibrate", base.status());
  auto board = sim::ReadMeasuredBoard(a.fit, *base);
  if (!board.ok()) return ReportError("calibrate", board.status());
  sim::FitOptions options;
  options.keep_board_rate = a.keep_board_rate;
  // A percentage redrawn in place on a terminal: a large board takes a while.
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  int shown = -1;
  if (tty) {
    options.progress = [&shown](double fraction) {
      const int pct = int(fraction * 100);
      if (pct == shown) return;
      shown = pct;
      std::fprintf(stderr, "\rcalibrate: fitting the GPU file ... %3d %%", pct);
      std::fflush(stderr);
    };
  }
  const sim::GpuFit fit = sim::FitGpuToMeasurements(*base, *board, options);
  if (tty) std::fputs("\n", stderr);
  const std::string header = "# " + fit.gpu.name + ": written by braid calibrate --fit " + OneLine(a.fit) + " --gpu " +
                             OneLine(a.gpu) + (a.keep_board_rate ? " --keep-board-rate" : "") + "\n";
  auto text = sim::FittedGpuFile(fit, header, a.gpu);
  if (!text.ok()) return ReportError("calibrate", text.status());
  if (Status s = WriteFileAtomically(a.out, *text); !s.ok()) return ReportError("calibrate", s);
  if (a.json) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : fit.parameters) params.push_back({{"name", p.name}, {"before", p.before}, {"after", p.after}});
    std::cout << nlohmann::json{{"out", a.out},
                                {"parameters", params},
                                {"before", RowsJson(fit.before.rows)},
                                {"after", RowsJson(fit.after.rows)},
                                {"ok", fit.after.ok()}}
                     .dump(2)
              << "\n";
  } else {
    std::printf("fitted parameters\n");
    for (const auto& p : fit.parameters) std::printf("  %-28s %10.4g -> %10.4g\n", p.name.c_str(), p.before, p.after);
    std::cout << "\nbefore (" << a.gpu << ")\n" << sim::FormatCheckTable(fit.before.rows);
    std::printf("gemm_bf16 mean |error| %.1f %%\n", fit.before.gemm_mean_abs_pct);
    std::cout << "\nafter (" << a.out << ")\n" << sim::FormatCheckTable(fit.after.rows);
    std::printf("gemm_bf16 mean |error| %.1f %%\nwrote %s\n", fit.after.gemm_mean_abs_pct, a.out.c_str());
  }
  return kExitOk;
}

}  // namespace

void AddCalibrateOptions(CLI::App* sub, CalibrateArgs* a) {
  sub->add_option("--gemm", a->gemm, "predict one GEMM: M,N,K (K/M/G suffixes)");
  sub->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32 | fp8_e4m3 | fp8_e5m2")->capture_default_str();
  sub->add_option("--gpu", a->gpu, "GPU name or .toml file (for --gemm)")->capture_default_str();
  sub->add_option("--collective", a->collective, "predict one collective: all_reduce | all_gather | reduce_scatter");
  sub->add_option("--bytes", a->bytes, "collective message size (nccl-tests convention; K/M/G suffixes)");
  sub->add_option("--topology", a->topology, "topology name or .toml file (for --collective)")->capture_default_str();
  sub->add_option("-b,--min-bytes", a->min_bytes, "collective sweep: smallest size (nccl-tests -b)");
  sub->add_option("-e,--max-bytes", a->max_bytes, "collective sweep: largest size (nccl-tests -e)");
  sub->add_option("-f,--step-factor", a->step_factor, "collective sweep: size multiplier (nccl-tests -f)")
      ->capture_default_str();
  sub->add_option("--tp", a->tp, "ranks of the collective (default: every GPU of the topology)");
  sub->add_option("--held-sms", a->held_sms, "--gemm beside another kernel holding this many SMs");
  sub->add_option("--holder", a->holder, "what the SM holder does: spin | copy (HBM traffic)")->capture_default_str();
  sub->add_flag("--check", a->check, "compare the models with every public figure and the measured board");
  sub->add_option("--measured", a->measured, "--check: the measured board's folder (skipped when absent)")
      ->capture_default_str();
  sub->add_option("--fit", a->fit, "fit --gpu's file to the measurements in this folder (CSV layout of h100-measured)");
  sub->add_option("-o,--out", a->out, "--fit: the GPU file to write");
  sub->add_flag("--keep-board-rate", a->keep_board_rate,
                "--fit: keep --gpu's 8192^3 GEMM rate (its published boards), fit only the trends");
  sub->add_flag("--measure", a->measure,
                "measure this machine's GPU (h100-measured's CSV layout) and fit --gpu's file to it (needs --gpu-out)");
  sub->add_option("--gpu-out", a->gpu_out, "--measure: the GPU file to write");
  sub->add_option("--csv-dir", a->csv_dir, "--measure: where the CSVs go (default: a new folder beside --gpu-out)");
  sub->add_flag("--quick", a->quick, "--measure: a small grid and fewer samples (seconds, for tests/gpu/run.sh)");
  sub->add_option("--fused-engine", a->fused_engine,
                  "--measure: the fused kernel whose halves it times: tasks (the task kernel) | core (the GEMM core)")
      ->default_str("tasks");
  sub->add_flag("--no-progress", a->no_progress, "--measure: no progress on stderr");
  sub->add_flag("--json", a->json, "print one JSON object");
}

int ExecuteCalibrate(const CalibrateArgs& a) {
  const int modes =
      int(!a.gemm.empty()) + int(!a.collective.empty()) + int(a.check) + int(!a.fit.empty()) + int(a.measure);
  if (modes != 1) {
    return ReportError("calibrate", Status::Invalid(a.measure ? "--measure goes alone (not with --gemm, --collective, "
                                                                "--check or --fit)"
                                                              : "give exactly one of --gemm M,N,K, --collective KIND, "
                                                                "--check, --fit DIR or --measure"));
  }
  if (!a.measure && a.fused_engine) {
    return ReportError("calibrate", Status::Invalid("--fused-engine goes with --measure"));
  }
  if (a.measure) return CalibrateMeasure(a);
  if (!a.gemm.empty()) return CalibrateGemm(a);
  if (!a.collective.empty()) return CalibrateCollective(a);
  if (!a.fit.empty()) return CalibrateFit(a);
  return CalibrateCheck(a);
}

}  // namespace braid::cli
