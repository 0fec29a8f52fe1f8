// The GPU file writer, beside its reader (gpu_files.cc): what `braid
// calibrate --fit` and `--measure` write. Every field ParseGpuToml reads,
// numbers to 6 significant digits; a round-trip test holds the pair.
#include <cstdio>
#include <string>

#include "braid/gpu_files.h"
#include "braid/toml_quote.h"

namespace braid {

std::string GpuToml(const GpuSpec& g) {
  std::string out;
  char line[256];
  const auto num = [&](const char* key, double v) {
    std::snprintf(line, sizeof line, "%s = %.6g\n", key, v);
    std::string s = line;
    // TOML floats need a '.', 'e' or the like: "1" would read as an integer.
    if (s.find_first_of(".e", s.find('=')) == std::string::npos) s.insert(s.size() - 1, ".0");
    out += s;
  };
  const auto integer = [&](const char* key, int v) { out += std::string(key) + " = " + std::to_string(v) + "\n"; };
  out += "name = " + TomlQuote(g.name) + "\n";
  integer("sm_count", g.sm_count);
  num("tflops_bf16", g.tflops_bf16);
  num("tflops_fp16", g.tflops_fp16);
  num("tflops_fp32", g.tflops_fp32);
  num("hbm_gbs", g.hbm_gbs);
  num("hbm_efficiency", g.hbm_efficiency);
  integer("tile_m", g.tile_m);
  integer("tile_n", g.tile_n);
  num("efficiency_bf16", g.efficiency_bf16);
  num("efficiency_fp16", g.efficiency_fp16);
  num("efficiency_fp32", g.efficiency_fp32);
  if (g.tflops_fp8 > 0) {
    num("tflops_fp8", g.tflops_fp8);
    num("efficiency_fp8", g.efficiency_fp8);
  }
  num("launch_us", g.launch_us);
  num("event_wait_us", g.event_wait_us);
  integer("copy_engines", g.copy_engines);
  num("board_rate", g.board_rate);
  num("tile_overhead_us", g.tile_overhead_us);
  num("stream_k_fixup", g.stream_k_fixup);
  num("split_k_traffic", g.split_k_traffic);
  num("sm_boost_exponent", g.sm_boost_exponent);
  num("sm_boost_cap", g.sm_boost_cap);
  num("sm_copy_gbs", g.sm_copy_gbs);
  num("l2_miss", g.l2_miss);
  num("hbm_copy_weight", g.hbm_copy_weight);
  num("hbm_ce_weight", g.hbm_ce_weight);
  num("loopback_copy_efficiency", g.loopback_copy_efficiency);
  num("loopback_overlap", g.loopback_overlap);
  num("loopback_launch_us", g.loopback_launch_us);
  num("loopback_rank_launch_us", g.loopback_rank_launch_us);
  num("fused_gemm_efficiency", g.fused_gemm_efficiency);
  num("fused_sm_transfer_gbs", g.fused_sm_transfer_gbs);
  if (g.comm_sm_gbs > 0) num("comm_sm_gbs", g.comm_sm_gbs);
  out += "source = " + TomlQuote(g.source) + "\n";
  if (g.error_band.any_measured()) {
    const GpuErrorBand& b = g.error_band;
    out += "\n[error_band]\n";
    if (!b.gemm_assumed) num("gemm", b.gemm);
    if (!b.gemm_held_sms_assumed) num("gemm_held_sms", b.gemm_held_sms);
    if (!b.loopback_assumed) num("loopback", b.loopback);
    out += "source = " + TomlQuote(b.source) + "\n";
  }
  for (const GemmKernel& k : g.kernels) {
    out += "\n[[kernel]]\n";
    integer("tile_m", k.tile_m);
    integer("tile_n", k.tile_n);
    num("efficiency", k.efficiency);
  }
  return out;
}

}  // namespace braid
