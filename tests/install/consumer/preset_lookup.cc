// Loads the preset file named by argv[1] and prints the preset for one
// shape of the example file (gemm_rs 4096x8192x28672 bf16, TP 8, h100-sxm).
#include <cstdio>
#include <string>

#include "braid/presets.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: preset_lookup PRESETS.toml\n");
    return 2;
  }
  braid::Result<braid::PresetTable> table = braid::PresetTable::Load(argv[1]);
  if (!table.ok()) {
    std::fprintf(stderr, "load failed: %s\n", table.status().message().c_str());
    return 1;
  }
  braid::Workload w;
  w.op = braid::Op::kGemmRs;
  w.m = 4096;
  w.n = 8192;
  w.k = 28672;
  w.dtype = braid::DType::kBf16;
  w.tp = 8;
  braid::LookupResult r = table->Lookup(w, "h100-sxm", "h100-sxm");
  if (r.preset == nullptr) {
    std::fprintf(stderr, "no preset for %s\n", w.Describe().c_str());
    return 1;
  }
  std::printf("%s: %s (%s)\n", w.Describe().c_str(), r.preset->config.Describe().c_str(),
              std::string(braid::PresetMatchName(r.match)).c_str());
  return 0;
}
