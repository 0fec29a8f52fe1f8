// GPU files and calibration points: every error names file, line and field.
#include "braid/gpu_files.h"

#include <tuple>

#include "braid/toml_fields.h"
#include "braid/toml_reader.h"
#include "builtin_calibration.h"
#include "builtin_gpus.h"
#include "error_band_table.h"

namespace braid {

double GpuSpec::PeakTflops(DType d) const {
  switch (d) {
    case DType::kBf16:
      return tflops_bf16;
    case DType::kFp16:
      return tflops_fp16;
    case DType::kFp32:
      return tflops_fp32;
    case DType::kFp8E4m3:
    case DType::kFp8E5m2:
      return tflops_fp8;
  }
  return 0;
}

double GpuSpec::Efficiency(DType d) const {
  switch (d) {
    case DType::kBf16:
      return efficiency_bf16;
    case DType::kFp16:
      return efficiency_fp16;
    case DType::kFp32:
      return efficiency_fp32;
    case DType::kFp8E4m3:
    case DType::kFp8E5m2:
      return efficiency_fp8;
  }
  return 0;
}

Status GpuSpec::CheckSupports(DType d) const {
  if (PeakTflops(d) > 0 && Efficiency(d) > 0) return Status::Ok();
  return Status::Invalid(name + " has no " + std::string(DTypeName(d)) +
                         " tensor cores (its GPU file gives no tflops_fp8); FP8 needs Ada, Hopper or newer, e.g. "
                         "h100-sxm, h200-sxm, b200-sxm; or `dtype` bf16");
}

namespace {

// An optional number in [lo, hi]: absent keeps *dst.
Status OptionalNumber(const TomlValue& doc, const TomlFields& f, const char* key, double lo, double hi, double* dst) {
  if (doc.Find(key) == nullptr) return Status::Ok();
  BRAID_ASSIGN_OR_RETURN(auto v, f.Number(key, lo, hi));
  *dst = v;
  return Status::Ok();
}

// The optional kernel-choice model: [[kernel]] candidates and its fitted figures.
Status ReadKernelModel(const TomlValue& doc, const TomlFields& f, std::string_view origin, GpuSpec* g) {
  for (auto [key, lo, hi, dst] : {std::tuple{"board_rate", 0.05, 2.0, &g->board_rate},
                                  {"tile_overhead_us", 0.0, 1000.0, &g->tile_overhead_us},
                                  {"stream_k_fixup", 0.0, 10.0, &g->stream_k_fixup},
                                  {"split_k_traffic", 0.0, 1.0, &g->split_k_traffic},
                                  {"sm_boost_exponent", 0.0, 1.0, &g->sm_boost_exponent},
                                  {"sm_boost_cap", 1.0, 4.0, &g->sm_boost_cap},
                                  {"sm_copy_gbs", 0.0, 1e5, &g->sm_copy_gbs},
                                  {"l2_miss", 0.0, 1.0, &g->l2_miss},
                                  {"hbm_copy_weight", 0.1, 10.0, &g->hbm_copy_weight},
                                  {"hbm_ce_weight", 0.1, 10.0, &g->hbm_ce_weight},
                                  {"loopback_copy_efficiency", 0.01, 1.0, &g->loopback_copy_efficiency},
                                  // A share: 0 (one after the other) to 1 (fully hidden).
                                  {"loopback_overlap", 0.0, 1.0, &g->loopback_overlap},
                                  {"loopback_launch_us", 0.0, 1000.0, &g->loopback_launch_us},
                                  {"loopback_rank_launch_us", 0.0, 1000.0, &g->loopback_rank_launch_us},
                                  // <= 1: the fused kernel never computes faster than
                                  // the GEMM outside it (the lower bound stays a bound).
                                  {"fused_gemm_efficiency", 0.001, 1.0, &g->fused_gemm_efficiency},
                                  {"fused_sm_transfer_gbs", 0.0, 1e5, &g->fused_sm_transfer_gbs},
                                  {"comm_sm_gbs", 0.0, 1e5, &g->comm_sm_gbs}}) {
    BRAID_RETURN_IF_ERROR(OptionalNumber(doc, f, key, lo, hi, dst));
  }
  const TomlValue* arr = doc.Find("kernel");
  if (arr == nullptr) return Status::Ok();
  if (arr->kind != TomlValue::Kind::kArray) {
    return Status::Invalid(f.Where(*arr) + ": kernel must be an array of tables ([[kernel]])");
  }
  for (const TomlValue& item : arr->items) {
    if (item.kind != TomlValue::Kind::kTable) return Status::Invalid(f.Where(item) + ": kernel entries must be tables");
    const TomlFields k(item, origin, "kernel.");
    BRAID_RETURN_IF_ERROR(k.OnlyKnownKeys({"tile_m", "tile_n", "efficiency"}));
    GemmKernel kern;
    for (auto [key, dst] : {std::pair{"tile_m", &kern.tile_m}, {"tile_n", &kern.tile_n}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, k.Integer(key, 8, 1024));
      *dst = int(v);
    }
    BRAID_ASSIGN_OR_RETURN(auto e, k.Number("efficiency", 0.01, 1.0));
    kern.efficiency = e;
    g->kernels.push_back(kern);
  }
  return Status::Ok();
}

// [error_band]: any of its figures, each a relative error in [0, 1], and
// where they come from.
Status ReadGpuErrorBand(const TomlValue& doc, const TomlFields& f, std::string_view origin, GpuSpec* g) {
  if (doc.Find("error_band") == nullptr) return Status::Ok();
  BRAID_ASSIGN_OR_RETURN(auto t, f.Table("error_band"));
  const TomlFields b(*t, origin, "error_band.");
  BRAID_RETURN_IF_ERROR(b.OnlyKnownKeys({"gemm", "gemm_held_sms", "loopback", "source"}));
  GpuErrorBand band;
  BRAID_ASSIGN_OR_RETURN(band.source,
                         ReadErrorBandFields(*t, b,
                                             {{"gemm", &band.gemm, &band.gemm_assumed},
                                              {"gemm_held_sms", &band.gemm_held_sms, &band.gemm_held_sms_assumed},
                                              {"loopback", &band.loopback, &band.loopback_assumed}}));
  g->error_band = band;
  return Status::Ok();
}

}  // namespace

Result<GpuSpec> ParseGpuToml(std::string_view text, std::string_view origin) {
  BRAID_ASSIGN_OR_RETURN(auto doc, ParseToml(text, origin));
  const TomlFields f(doc, origin, "");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"name",
                                         "sm_count",
                                         "tflops_bf16",
                                         "tflops_fp16",
                                         "tflops_fp32",
                                         "hbm_gbs",
                                         "hbm_efficiency",
                                         "tile_m",
                                         "tile_n",
                                         "efficiency_bf16",
                                         "efficiency_fp16",
                                         "efficiency_fp32",
                                         "tflops_fp8",
                                         "efficiency_fp8",
                                         "launch_us",
                                         "event_wait_us",
                                         "copy_engines",
                                         "source",
                                         "board_rate",
                                         "tile_overhead_us",
                                         "stream_k_fixup",
                                         "split_k_traffic",
                                         "sm_boost_exponent",
                                         "sm_boost_cap",
                                         "sm_copy_gbs",
                                         "l2_miss",
                                         "hbm_copy_weight",
                                         "hbm_ce_weight",
                                         "loopback_copy_efficiency",
                                         "loopback_overlap",
                                         "loopback_launch_us",
                                         "loopback_rank_launch_us",
                                         "fused_gemm_efficiency",
                                         "fused_sm_transfer_gbs",
                                         "comm_sm_gbs",
                                         "error_band",
                                         "kernel"}));
  GpuSpec g;
  BRAID_ASSIGN_OR_RETURN(auto name, f.String("name"));
  g.name = name;
  for (auto [key, dst, hi] : {std::tuple{"sm_count", &g.sm_count, 1024},
                              {"tile_m", &g.tile_m, 1024},
                              {"tile_n", &g.tile_n, 1024},
                              {"copy_engines", &g.copy_engines, 64}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, f.Integer(key, 1, hi));
    *dst = int(v);
  }
  // Bounded by what a GPU can be, not only positive: tflops_bf16 = 1e-300
  // made every GEMM's time overflow to a negative makespan.
  for (auto [key, dst, lo, hi] : {std::tuple{"tflops_bf16", &g.tflops_bf16, kMinTflops, kMaxTflops},
                                  {"tflops_fp16", &g.tflops_fp16, kMinTflops, kMaxTflops},
                                  {"tflops_fp32", &g.tflops_fp32, kMinTflops, kMaxTflops},
                                  {"hbm_gbs", &g.hbm_gbs, kMinHbmGbs, kMaxHbmGbs}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, f.Number(key, lo, hi));
    *dst = v;
  }
  for (auto [key, dst] : {std::pair{"hbm_efficiency", &g.hbm_efficiency},
                          {"efficiency_bf16", &g.efficiency_bf16},
                          {"efficiency_fp16", &g.efficiency_fp16},
                          {"efficiency_fp32", &g.efficiency_fp32}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, f.Number(key, 0.01, 1.0));
    *dst = v;
  }
  // FP8 is optional: a GPU without FP8 tensor cores (A100) has neither key,
  // and an FP8 run on it is refused (CheckSupports).
  if (doc.Find("tflops_fp8") != nullptr || doc.Find("efficiency_fp8") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto peak, f.Number("tflops_fp8", kMinTflops, kMaxTflops));
    BRAID_ASSIGN_OR_RETURN(auto eff, f.Number("efficiency_fp8", 0.01, 1.0));
    g.tflops_fp8 = peak;
    g.efficiency_fp8 = eff;
  }
  for (auto [key, dst] : {std::pair{"launch_us", &g.launch_us}, {"event_wait_us", &g.event_wait_us}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, f.Number(key, 0.0, 1e6));
    *dst = v;
  }
  BRAID_RETURN_IF_ERROR(ReadKernelModel(doc, f, origin, &g));
  BRAID_RETURN_IF_ERROR(ReadGpuErrorBand(doc, f, origin, &g));
  BRAID_ASSIGN_OR_RETURN(auto src, f.String("source"));
  if (src.empty())
    return Status::Invalid(f.Where(*doc.Find("source")) + ": source must name where the numbers come from");
  g.source = src;
  return g;
}

std::vector<std::string> BuiltinGpuNames() { return NamesOf(kBuiltinGpus); }

Result<GpuSpec> LoadGpu(std::string_view name_or_path) {
  BRAID_ASSIGN_OR_RETURN(auto file, FindDataFile(name_or_path, kBuiltinGpus, "GPU"));
  return ParseGpuToml(file.text, file.origin);
}

namespace {

Result<GemmPoint> ReadGemmPoint(const TomlValue& t, std::string_view origin) {
  const TomlFields f(t, origin, "gemm.");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"gpu", "dtype", "m", "n", "k", "best", "tflops", "source"}));
  GemmPoint p;
  BRAID_ASSIGN_OR_RETURN(auto gpu, f.String("gpu"));
  p.gpu = gpu;
  BRAID_ASSIGN_OR_RETURN(auto dt, f.String("dtype"));
  auto d = ParseDType(dt);
  if (!d.ok()) return Status::Invalid(f.Where(*t.Find("dtype")) + ": gemm.dtype: " + d.status().message());
  p.dtype = *d;
  BRAID_ASSIGN_OR_RETURN(auto best, f.OptionalBool("best", false));
  p.best = best;
  if (!p.best) {
    for (auto [key, dst] : {std::pair{"m", &p.m}, {"n", &p.n}, {"k", &p.k}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, f.Integer(key, 1, int64_t(1) << 40));
      *dst = v;
    }
  }
  BRAID_ASSIGN_OR_RETURN(auto tf, f.Number("tflops", kMinTflops, kMaxTflops));
  p.tflops = tf;
  BRAID_ASSIGN_OR_RETURN(auto src, f.String("source"));
  p.source = src;
  return p;
}

Result<CollectivePoint> ReadCollectivePoint(const TomlValue& t, std::string_view origin) {
  const TomlFields f(t, origin, "collective.");
  BRAID_RETURN_IF_ERROR(
      f.OnlyKnownKeys({"topology", "kind", "ranks", "bytes", "busbw_gbs", "source", "tolerance_pct"}));
  CollectivePoint p;
  for (auto [key, dst] : {std::pair{"topology", &p.topology}, {"kind", &p.kind}, {"source", &p.source}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, f.String(key));
    *dst = v;
  }
  if (p.kind != "all_reduce" && p.kind != "all_gather" && p.kind != "reduce_scatter") {
    return Status::Invalid(f.Where(*t.Find("kind")) +
                           ": collective.kind must be all_reduce, all_gather or reduce_scatter");
  }
  BRAID_ASSIGN_OR_RETURN(auto ranks, f.Integer("ranks", 2, 4096));
  p.ranks = int(ranks);
  BRAID_ASSIGN_OR_RETURN(auto bytes, f.Integer("bytes", 1, int64_t(1) << 45));
  p.bytes = bytes;
  BRAID_ASSIGN_OR_RETURN(auto bw, f.Number("busbw_gbs", 0.001, 1e6));
  p.busbw_gbs = bw;
  if (t.Find("tolerance_pct") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto tol, f.Number("tolerance_pct", 0.1, 100));
    p.tolerance_pct = tol;
  }
  return p;
}

}  // namespace

Result<CalibrationPoints> ParseCalibrationToml(std::string_view text, std::string_view origin) {
  BRAID_ASSIGN_OR_RETURN(auto doc, ParseToml(text, origin));
  const TomlFields f(doc, origin, "");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"gemm", "collective"}));
  CalibrationPoints out;
  for (const char* key : {"gemm", "collective"}) {
    const TomlValue* arr = doc.Find(key);
    if (arr == nullptr) continue;
    if (arr->kind != TomlValue::Kind::kArray) {
      return Status::Invalid(f.Where(*arr) + ": " + key + " must be an array of tables ([[" + key + "]])");
    }
    for (const TomlValue& item : arr->items) {
      if (item.kind != TomlValue::Kind::kTable) {
        return Status::Invalid(f.Where(item) + ": " + key + " entries must be tables");
      }
      if (std::string_view(key) == "gemm") {
        BRAID_ASSIGN_OR_RETURN(auto p, ReadGemmPoint(item, origin));
        out.gemm.push_back(p);
      } else {
        BRAID_ASSIGN_OR_RETURN(auto p, ReadCollectivePoint(item, origin));
        out.collective.push_back(p);
      }
    }
  }
  return out;
}

Result<CalibrationPoints> BuiltinCalibrationPoints() {
  for (const EmbeddedFile& f : kBuiltinCalibration) {
    if (f.name == "calibration_points") return ParseCalibrationToml(f.text, "calibration_points.toml");
  }
  return Status::Internal("calibration_points.toml is not compiled in");
}

}  // namespace braid
