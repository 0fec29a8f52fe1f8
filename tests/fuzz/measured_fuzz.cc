// libFuzzer target: bytes = one of a board's measurement CSVs (`braid
// calibrate --fit`'s input), read as each kind in turn. Reading must never
// crash; a refusal is one line naming the file; rows read are positive
// figures within the GPU's SM count.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/kernel_tile_name.h"
#include "braid/sim_measured.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  braid::GpuSpec gpu;  // h100-sxm's figures the reader checks against
  gpu.name = "fuzz-gpu";
  gpu.sm_count = 132;
  gpu.tflops_bf16 = 989;
  gpu.tflops_fp8 = 1979;
  gpu.hbm_gbs = 3350;
  // Any bytes as a kernel name.
  if (const auto t = braid::sim::KernelTileOf(text)) {
    braid::fuzz::Require(t->m >= 8 && t->m <= 1024 && t->n >= 8 && t->n <= 1024, "tile sides");
  }
  for (const std::string& name : braid::sim::MeasuredFileNames()) {
    braid::sim::MeasuredBoard b;
    const braid::Status s = braid::sim::ReadMeasuredFile(name, text, gpu, &b);
    if (!s.ok()) {
      braid::fuzz::Require(s.message().find('\n') == std::string::npos, "one-line error");
      braid::fuzz::Require(s.message().rfind(name, 0) == 0, "error names the file");
      continue;
    }
    for (const auto& g : b.gemm) braid::fuzz::Require(g.m > 0 && g.n > 0 && g.k > 0 && g.time_ns > 0, "gemm row > 0");
    for (const auto& h : b.held) braid::fuzz::Require(h.held_sms >= 0 && h.held_sms < gpu.sm_count, "held SMs");
    for (const auto& f : b.fused) {
      braid::fuzz::Require(f.comm_sms > 0 && f.comm_sms < gpu.sm_count, "comm SMs");
      braid::fuzz::Require(f.engine == b.fused.front().engine && (f.engine == "tasks" || f.engine == "core"),
                           "one known engine per file");
    }
    for (const auto& c : b.copy_bw) braid::fuzz::Require(c.sms > 0 && c.gbs > 0, "copy row > 0");
    for (const auto& k : b.kernels) {
      braid::fuzz::Require(!k.kernel.empty() && k.kernel.size() <= braid::sim::kMaxKernelNameBytes, "kernel name");
      braid::fuzz::Require(k.grid_ctas > 0 && k.cluster_ctas >= 1 && k.cluster_ctas <= 16, "kernel grid");
    }
    // The names' tiles are parsed from what the file says.
    for (const auto& k : b.kernels) {
      const auto t = braid::sim::KernelTileOf(k.kernel);
      if (t) braid::fuzz::Require(t->m >= 8 && t->m <= 1024 && t->n >= 8 && t->n <= 1024, "tile sides");
    }
  }
  return 0;
}
