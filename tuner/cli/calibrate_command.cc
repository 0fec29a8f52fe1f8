#include "calibrate_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "braid/gpu_files.h"
#include "braid/sim_calibration.h"
#include "braid/size_parse.h"
#include "braid/topology_files.h"
#include "cli_exit.h"

namespace braid::cli {

namespace {

constexpr double kMaxErrorPct = 10.0;

int CalibrateGemm(const CalibrateArgs& a) {
  auto shape = sim::ParseGemmShape(a.gemm, "--gemm");
  if (!shape.ok()) return ReportError("calibrate", shape.status());
  auto dtype = ParseDType(a.dtype);
  if (!dtype.ok()) return ReportError("calibrate", dtype.status());
  auto gpu = LoadGpu(a.gpu);
  if (!gpu.ok()) return ReportError("calibrate", gpu.status());
  const sim::GemmPrediction p = sim::PredictGemm(*gpu, shape->m, shape->n, shape->k, *dtype);
  if (a.json) {
    std::cout << nlohmann::json{{"time_ns", p.time_ns}, {"tflops", p.tflops}}.dump() << "\n";
  } else {
    std::printf("%s %s gemm %lldx%lldx%lld: %.1f us, %.1f TFLOP/s\n", gpu->name.c_str(),
                std::string(DTypeName(*dtype)).c_str(), static_cast<long long>(shape->m),
                static_cast<long long>(shape->n), static_cast<long long>(shape->k), p.time_ns / 1e3, p.tflops);
  }
  return kExitOk;
}

int CalibrateCollective(const CalibrateArgs& a) {
  auto kind = sim::ParseCollectiveKind(a.collective);
  if (!kind.ok()) return ReportError("calibrate", kind.status());
  if (a.bytes.empty()) return ReportError("calibrate", Status::Invalid("--collective needs --bytes SIZE"));
  auto bytes = ParseSize(a.bytes, "--bytes");
  if (!bytes.ok()) return ReportError("calibrate", bytes.status());
  auto topo = LoadTopology(a.topology);
  if (!topo.ok()) return ReportError("calibrate", topo.status());
  const int tp = a.tp == 0 ? topo->total_gpus() : a.tp;
  if (tp < 2) return ReportError("calibrate", Status::Invalid("--tp must be at least 2 for a collective"));
  if (Status s = topo->CheckFits(tp); !s.ok()) return ReportError("calibrate", s);
  const sim::CollectivePrediction p = sim::PredictCollective(*topo, *kind, *bytes, tp);
  if (a.json) {
    std::cout << nlohmann::json{{"time_ns", p.time_ns}, {"algbw_gbps", p.algbw_gbps}, {"busbw_gbps", p.busbw_gbps}}
                     .dump()
              << "\n";
  } else {
    std::printf("%s %lld bytes on %s (P=%d): %.1f us, algbw %.2f GB/s, busbw %.2f GB/s\n", a.collective.c_str(),
                static_cast<long long>(*bytes), topo->name.c_str(), tp, p.time_ns / 1e3, p.algbw_gbps,
                p.busbw_gbps);
  }
  return kExitOk;
}

int CalibrateCheck(const CalibrateArgs& a) {
  auto rows = sim::CheckCalibration();
  if (!rows.ok()) return ReportError("calibrate", rows.status());
  int off = 0;
  for (const sim::CheckRow& r : *rows) off += std::abs(r.error_pct) > kMaxErrorPct;
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const sim::CheckRow& r : *rows) {
      list.push_back({{"what", r.what}, {"measured", r.measured}, {"predicted", r.predicted},
                      {"error_pct", r.error_pct}, {"source", r.source}});
    }
    std::cout << nlohmann::json{{"points", list}, {"ok", off == 0}}.dump(2) << "\n";
  } else {
    std::cout << sim::FormatCheckTable(*rows);
  }
  std::cout.flush();
  if (off > 0) {
    return ReportError("calibrate", Status::Internal(std::to_string(off) + " of " + std::to_string(rows->size()) +
                                                         " points are off by more than 10%"));
  }
  return kExitOk;
}

}  // namespace

void AddCalibrateOptions(CLI::App* sub, CalibrateArgs* a) {
  sub->add_option("--gemm", a->gemm, "predict one GEMM: M,N,K (K/M/G suffixes)");
  sub->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32")->capture_default_str();
  sub->add_option("--gpu", a->gpu, "GPU name or .toml file (for --gemm)")->capture_default_str();
  sub->add_option("--collective", a->collective, "predict one collective: all_reduce | all_gather | reduce_scatter");
  sub->add_option("--bytes", a->bytes, "collective message size (nccl-tests convention; K/M/G suffixes)");
  sub->add_option("--topology", a->topology, "topology name or .toml file (for --collective)")->capture_default_str();
  sub->add_option("--tp", a->tp, "ranks of the collective (default: every GPU of the topology)");
  sub->add_flag("--check", a->check, "compare the models with every public calibration figure");
  sub->add_flag("--json", a->json, "print one JSON object");
}

int ExecuteCalibrate(const CalibrateArgs& a) {
  const int modes = int(!a.gemm.empty()) + int(!a.collective.empty()) + int(a.check);
  if (modes != 1) {
    return ReportError("calibrate", Status::Invalid("give exactly one of --gemm M,N,K, --collective KIND or --check"));
  }
  if (!a.gemm.empty()) return CalibrateGemm(a);
  if (!a.collective.empty()) return CalibrateCollective(a);
  return CalibrateCheck(a);
}

}  // namespace braid::cli
