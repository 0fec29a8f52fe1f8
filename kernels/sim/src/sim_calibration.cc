#include "braid/sim_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "braid/name_table.h"
#include "braid/sim_models.h"
#include "braid/size_parse.h"
#include "braid/topology_files.h"

namespace braid::sim {

Result<GemmShape> ParseGemmShape(std::string_view text, std::string_view flag) {
  int64_t dims[3] = {0, 0, 0};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t comma = i < 2 ? text.find(',', pos) : text.size();
    if (comma == std::string_view::npos || (i == 2 && text.find(',', pos) != std::string_view::npos)) {
      return Status::Invalid(std::string(flag) + " wants M,N,K (three sizes), got '" + OneLine(text) + "'");
    }
    BRAID_ASSIGN_OR_RETURN(auto v, ParseSize(text.substr(pos, comma - pos), flag));
    dims[i] = v;
    pos = comma + 1;
  }
  return GemmShape{dims[0], dims[1], dims[2]};
}

GemmPrediction PredictGemm(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype) {
  const double t = GemmTimeNs(gpu, m, n, k, dtype);
  return {t, 2.0 * double(m) * double(n) * double(k) / t / 1e3};  // FLOP/ns → TFLOP/s
}

GemmPrediction BestGemm(const GpuSpec& gpu, DType dtype) {
  GemmPrediction best;
  for (int64_t m = 1024; m <= 16384; m += 1024) {
    for (int64_t n = 1024; n <= 16384; n += 1024) {
      for (int64_t k : {4096, 8192, 16384}) {
        const GemmPrediction p = PredictGemm(gpu, m, n, k, dtype);
        if (p.tflops > best.tflops) best = p;
      }
    }
  }
  return best;
}

CollectivePrediction PredictCollective(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks) {
  CollectivePrediction p;
  const CollectiveChoice c = ChooseCollective(topo, kind, bytes, ranks);
  p.time_ns = c.time.total_ns();
  p.algo = c.algo;
  p.sms = CollectiveSms(topo, ranks, c.algo, 0);
  p.algbw_gbps = p.time_ns > 0 ? double(bytes) / p.time_ns : 0;
  p.busbw_gbps = p.algbw_gbps * BusBwFactor(kind, ranks);
  return p;
}

namespace {
constexpr NameTable<SmHolder, 2> kSmHolderNames{{{SmHolder::kSpin, "spin"}, {SmHolder::kCopy, "copy"}}};
static_assert(IsOneToOne(kSmHolderNames));
}  // namespace

Result<SmHolder> ParseSmHolder(std::string_view name) {
  if (const std::optional<SmHolder> h = ValueNamed(kSmHolderNames, name)) return *h;
  return Status::Invalid("`holder` must be spin or copy, got '" + OneLine(name) + "'");
}

std::string_view SmHolderName(SmHolder holder) { return NameIn(kSmHolderNames, holder); }

Status CheckHeldSms(const GpuSpec& gpu, int held_sms) {
  if (held_sms >= 0 && held_sms < gpu.sm_count) return Status::Ok();
  return Status::Invalid("`held_sms` must be between 0 and " + std::to_string(gpu.sm_count - 1) + " (" + gpu.name +
                         " has " + std::to_string(gpu.sm_count) + " SMs), got " + std::to_string(held_sms));
}

GemmPrediction PredictGemmBesideHeldSms(const GpuSpec& gpu, const GemmShape& s, DType dtype, int held_sms,
                                        SmHolder holder) {
  GemmPrediction p = PredictGemm(gpu, s.m, s.n, s.k, dtype);
  if (held_sms == 0) return p;
  p.time_ns = GemmBesideHeldSmsNs(gpu, s.m, s.n, s.k, dtype, held_sms, holder == SmHolder::kCopy);
  p.tflops = 2.0 * double(s.m) * double(s.n) * double(s.k) / p.time_ns / 1e3;
  return p;
}

Result<int> CollectiveRanks(const Topology& topo, int tp) {
  if (tp == 0 || tp < -1) return Status::Invalid("`tp` must be at least 2, got " + std::to_string(tp));
  const int ranks = tp == -1 ? topo.total_gpus() : tp;
  if (ranks < 2) return Status::Invalid("`tp` must be at least 2 for a collective, got " + std::to_string(ranks));
  BRAID_RETURN_IF_ERROR(topo.CheckFits(ranks));
  return ranks;
}

namespace {

std::string SizeText(int64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB"};
  int u = 0;
  while (u < 3 && bytes % 1024 == 0 && bytes >= 1024) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + " " + units[u];
}

CheckRow Row(std::string what, double measured, double predicted, std::string source) {
  return {std::move(what), measured, predicted, (predicted - measured) / measured * 100.0, std::move(source)};
}

}  // namespace

Result<std::vector<CheckRow>> CheckCalibration() {
  BRAID_ASSIGN_OR_RETURN(auto points, BuiltinCalibrationPoints());
  std::vector<CheckRow> rows;
  for (const GemmPoint& p : points.gemm) {
    BRAID_ASSIGN_OR_RETURN(auto gpu, LoadGpu(p.gpu));
    const std::string head = p.gpu + " " + std::string(DTypeName(p.dtype)) + " gemm ";
    if (p.best) {
      rows.push_back(Row(head + "best shape TFLOP/s", p.tflops, BestGemm(gpu, p.dtype).tflops, p.source));
    } else {
      const std::string shape = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
      rows.push_back(
          Row(head + shape + " TFLOP/s", p.tflops, PredictGemm(gpu, p.m, p.n, p.k, p.dtype).tflops, p.source));
    }
  }
  for (const CollectivePoint& p : points.collective) {
    BRAID_ASSIGN_OR_RETURN(auto topo, LoadTopology(p.topology));
    BRAID_ASSIGN_OR_RETURN(auto kind, ParseCollectiveKind(p.kind));
    const CollectivePrediction c = PredictCollective(topo, kind, p.bytes, p.ranks);
    rows.push_back(
        Row(p.topology + " x" + std::to_string(p.ranks) + " " + p.kind + " " + SizeText(p.bytes) + " busbw GB/s",
            p.busbw_gbs, c.busbw_gbps, p.source));
    rows.back().tolerance_pct = p.tolerance_pct;
  }
  return rows;
}

std::string FormatCheckTable(const std::vector<CheckRow>& rows) {
  size_t width = 4;
  for (const CheckRow& r : rows) width = std::max(width, r.what.size());
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %10s %10s %8s %6s\n", int(width), "what", "measured", "predicted", "error %",
                "tol %");
  out += line;
  for (const CheckRow& r : rows) {
    std::snprintf(line, sizeof line, "%-*s %10.4g %10.4g %+8.1f %6.0f%s\n", int(width), r.what.c_str(), r.measured,
                  r.predicted, r.error_pct, r.tolerance_pct, r.ok() ? "" : "  OFF");
    out += line;
  }
  return out;
}

}  // namespace braid::sim
