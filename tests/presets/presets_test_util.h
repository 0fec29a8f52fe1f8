// Shared fixtures for the preset tests.
#pragma once

#include <string>

#include "braid/presets.h"

namespace braid::testing_presets {

inline Preset MakePreset(int64_t m, int64_t n, int64_t k, std::string date = "2026-11-01T00:00:00Z") {
  Preset p;
  p.key.gpu = "h100-sxm";
  p.key.topology = "h100-sxm";
  p.key.workload.op = Op::kGemmRs;
  p.key.workload.dtype = DType::kBf16;
  p.key.workload.tp = 8;
  p.key.workload.m = m;
  p.key.workload.n = n;
  p.key.workload.k = k;
  p.config.algorithm = Algorithm::kRing;
  p.config.chunks = 2;
  p.config.comm_lanes = 2;
  p.config.comm_sms = 16;
  p.time_ns = 123456.5;
  p.speedup_vs_serial = 1.37;
  p.speedup_vs_te_default = 1.08;
  p.overlap_ratio = 0.91;
  p.tail_ns = 2100.25;
  p.backend = "sim";
  p.braid_version = "0.1.0";
  p.date = std::move(date);
  return p;
}

// One valid preset entry as TOML; tests edit it to make bad ones.
inline const char* kValidEntry =
    "[[preset]]\n"
    "gpu = \"h100-sxm\"\n"
    "topology = \"h100-sxm\"\n"
    "tp = 8\n"
    "op = \"gemm_rs\"\n"
    "dtype = \"bf16\"\n"
    "m = 4096\n"
    "n = 8192\n"
    "k = 28672\n"
    "algorithm = \"ring\"\n"
    "chunks = 2\n"
    "streams = 2\n"
    "comm_sms = 16\n"
    "comm_engine = \"sm\"\n"
    "comm_priority = \"high\"\n"
    "time_ns = 1000.0\n"
    "speedup_vs_serial = 1.2\n"
    "speedup_vs_te_default = 1.1\n"
    "overlap_ratio = 0.8\n"
    "tail_ns = 10.0\n"
    "backend = \"sim\"\n"
    "simulated = true\n"
    "braid_version = \"0.1.0\"\n"
    "date = \"2026-11-21T12:00:00Z\"\n";

inline std::string FileWith(const std::string& entry) { return "format = \"braid-presets\"\nversion = 1\n\n" + entry; }

}  // namespace braid::testing_presets
