// The measurements as files (braid/gpu_measure.h): the CSV layout of
// docs/simulator.md ("A board's measurements"), and the GPU file fitted to it.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "braid/gpu_measure.h"
#include "braid/safe_write.h"
#include "braid/sim_measured.h"

namespace braid::measure {

namespace {

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Ms(double ns) { return Fmt("%.6g", ns / 1e6); }

std::string Dims(const GemmShape& s) {
  return std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k);
}

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
std::string Slug(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += char(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "measured-gpu" : out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> MeasurementCsvFiles(const Measurements& m) {
  std::vector<std::pair<std::string, std::string>> files;
  std::string gemm = "m,n,k,time_ms,tflops\n";
  for (const MeasuredGemmRow& r : m.gemm) {
    const double flop = 2.0 * double(r.shape.m) * double(r.shape.n) * double(r.shape.k);
    gemm += Dims(r.shape) + "," + Ms(r.time_ns) + "," + Fmt("%.1f", flop / r.time_ns / 1e3) + "\n";
  }
  // A file with a header and no rows is refused on reading: leave it out.
  if (!m.gemm.empty()) files.emplace_back("gemm_bf16.csv", gemm);
  if (!m.gemm_fp8.empty()) {
    std::string fp8 = "m,n,k,time_ms,tflops\n";
    for (const MeasuredGemmRow& r : m.gemm_fp8) {
      const double flop = 2.0 * double(r.shape.m) * double(r.shape.n) * double(r.shape.k);
      fp8 += Dims(r.shape) + "," + Ms(r.time_ns) + "," + Fmt("%.1f", flop / r.time_ns / 1e3) + "\n";
    }
    files.emplace_back("gemm_fp8.csv", fp8);
  }
  std::string held = "m,n,k,holder,held_sms,time_ms,alone_ms\n";
  for (const MeasuredHeldRow& r : m.held) {
    held += Dims(r.shape) + (r.holder == Holder::kCopy ? ",copy," : ",spin,") + std::to_string(r.held_sms) + "," +
            Ms(r.time_ns) + "," + Ms(r.alone_ns) + "\n";
  }
  if (!m.held.empty()) files.emplace_back("gemm_beside_held_sms.csv", held);
  std::string copy = "sms,gbs_read_plus_write\n";
  for (const MeasuredCopyRow& r : m.copy_bw) copy += std::to_string(r.sms) + "," + Fmt("%.1f", r.gbs) + "\n";
  if (!m.copy_bw.empty()) files.emplace_back("copy_kernel_bw.csv", copy);
  files.emplace_back("copy_engine.csv", "what,value\ngemm_8192_cubed_alone_ms," + Ms(m.ce_gemm_alone_ns) +
                                            "\ngemm_8192_cubed_beside_ce_copy_ms," + Ms(m.ce_gemm_beside_ns) +
                                            "\nce_d2d_copy_2GiB_ms," + Ms(m.ce_copy_ns) + "\nce_gbs_read_plus_write," +
                                            Fmt("%.1f", m.ce_copy_gbs) + "\n");
  files.emplace_back("launch_gaps.csv",
                     "what,ns_p50\nsame_stream_start_to_start," + Fmt("%.0f", m.host_same_stream_ns) +
                         "\ncross_stream_event_wait_start_to_start," + Fmt("%.0f", m.host_cross_stream_ns) +
                         "\ngraph_same_stream_start_to_start," + Fmt("%.0f", m.graph_same_stream_ns) +
                         "\ngraph_cross_stream_event_wait_start_to_start," + Fmt("%.0f", m.graph_cross_stream_ns) +
                         "\n");
  if (!m.fused.empty()) {
    std::string fused = "m,n,k,comm_sms,gemm_ms,bytes,transfer_ms,engine\n";
    for (const MeasuredFusedRow& r : m.fused) {
      fused += Dims(r.shape) + "," + std::to_string(r.comm_sms) + "," + Ms(r.gemm_ns) + "," + std::to_string(r.bytes) +
               "," + Ms(r.transfer_ns) + "," + std::string(NameIn(kFusedEngineNames, r.engine)) + "\n";
    }
    files.emplace_back("fused_kernel.csv", fused);
  }
  if (!m.kernels.empty()) {
    std::string kernels =
        "m,n,k,dtype,kernel,grid_ctas,cluster_ctas,max_active_clusters,block_threads,registers,shared_bytes\n";
    for (const sim::MeasuredGemmKernel& k : m.kernels) {
      // A name is one CSV field: commas (a demangled template's) and control
      // characters become ';' and '?', and it is cut to what the reader takes.
      std::string name = k.kernel.substr(0, sim::kMaxKernelNameBytes);
      for (char& ch : name) {
        if (ch == ',') ch = ';';
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
      }
      if (name.empty()) name = "kernel";
      kernels += std::to_string(k.m) + "," + std::to_string(k.n) + "," + std::to_string(k.k) + "," +
                 (k.fp8 ? "fp8_e4m3," : "bf16,") + name + "," + std::to_string(k.grid_ctas) + "," +
                 std::to_string(k.cluster_ctas) + "," + std::to_string(k.max_active_clusters) + "," +
                 std::to_string(k.block_threads) + "," + std::to_string(k.registers) + "," +
                 std::to_string(k.shared_bytes) + "\n";
    }
    files.emplace_back("gemm_kernels.csv", kernels);
  }
  return files;
}

Status WriteMeasurementCsvs(const Measurements& m, const std::string& dir) {
  for (const auto& [name, bytes] : MeasurementCsvFiles(m)) {
    BRAID_RETURN_IF_ERROR(WriteFileAtomically(dir + "/" + name, bytes));
  }
  return Status::Ok();
}

Result<MeasuredFit> FitMeasuredGpu(const GpuSpec& base_file, const std::string& dir, const Measurements& m,
                                   const sim::FitOptions& options) {
  GpuSpec base = base_file;
  base.sm_count = m.sm_count;
  base.name = Slug(m.device);
  auto board = sim::ReadMeasuredBoard(dir, base);
  if (!board.ok()) return Status::Internal("the measured CSVs do not read back: " + board.status().message());
  MeasuredFit out;
  out.fit = sim::FitGpuToMeasurements(base, *board, options);
  out.toml = "# " + out.fit.gpu.name + ": measured on '" + m.device + "' (" + std::to_string(m.sm_count) +
             " SMs) and fitted by braid calibrate --measure\n# Measurements: " + dir +
             " (the CSV layout of shared/calibration/h100-measured).\n# Fitted to them:";
  for (const sim::FittedParameter& p : out.fit.parameters) {
    out.toml += (&p == &out.fit.parameters.front() ? " " : ", ") + p.name;
  }
  out.toml += ".\n# Every other figure is " + base_file.name + "'s, with its sources.\n";
  out.toml += m.fused.empty()
                  ? "# The fused kernel's figures: not measured (no fused points in the plan).\n"
                  : "# The fused kernel's figures: fitted to fused_kernel.csv (" + std::to_string(m.fused.size()) +
                        " points of the " + std::string(NameIn(kFusedEngineNames, m.fused.front().engine)) +
                        " engine, its GEMM and transfer halves timed apart on one GPU).\n";
  out.toml += m.gemm_fp8.empty() ? "# FP8: not measured (no FP8 tensor cores, or no FP8 shapes in the plan).\n"
                                 : "# FP8: efficiency_fp8 fitted to gemm_fp8.csv (" +
                                       std::to_string(m.gemm_fp8.size()) + " E4M3 GEMMs).\n";
  out.toml += GpuToml(out.fit.gpu);
  if (auto back = ParseGpuToml(out.toml, "the fitted GPU file"); !back.ok()) {
    return Status::Internal("the fitted GPU file does not read back: " + back.status().message());
  }
  return out;
}

std::vector<FileErrors> ErrorsByFile(const sim::MeasuredCheck& check, const Measurements& m) {
  const bool graph_gaps = m.graph_same_stream_ns > 0 && m.graph_cross_stream_ns > 0;
  const std::pair<const char*, size_t> files[] = {
      {"gemm_bf16.csv", m.gemm.size()},         {"gemm_beside_held_sms.csv", m.held.size()},
      {"copy_kernel_bw.csv", m.copy_bw.size()}, {"copy_engine.csv", m.ce_copy_ns > 0 ? 2 : 0},
      {"launch_gaps.csv", graph_gaps ? 2 : 0},  {"fused_kernel.csv", 2 * m.fused.size()},
      {"gemm_fp8.csv", m.gemm_fp8.size()}};
  std::vector<FileErrors> out;
  size_t row = 0;
  for (auto [name, count] : files) {
    FileErrors f;
    f.file = name;
    for (size_t i = 0; i < count && row < check.rows.size(); ++i, ++row) {
      const sim::CheckRow& r = check.rows[row];
      const double e = std::abs(r.error_pct);
      ++f.rows;
      f.off += !r.ok();
      f.mean_abs_pct += e;
      f.max_abs_pct = std::max(f.max_abs_pct, e);
    }
    if (f.rows > 0) f.mean_abs_pct /= f.rows;
    out.push_back(f);
  }
  return out;
}

}  // namespace braid::measure
