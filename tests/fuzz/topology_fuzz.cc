// libFuzzer target: bytes = a topology TOML file. Parsing must never crash;
// a parsed topology must satisfy the loader's own rules.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "braid/topology_files.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = braid::ParseTopologyToml(text, "fuzz.toml");
  if (t.ok()) {
    braid::fuzz::Require(t->gpus_per_node >= 1 && t->nodes >= 1, "counts >= 1");
    braid::fuzz::Require(t->intra.bandwidth_gbs > 0 && t->intra.latency_us > 0, "positive link figures");
    const braid::CollectiveErrorBand& b = t->error_band;
    braid::fuzz::Require(b.collective >= 0 && b.collective <= 1 && b.collective_small >= 0 && b.collective_small <= 1,
                         "error bands within 0..1");
  } else {
    const std::string& m = t.status().message();
    braid::fuzz::Require(m.find('\n') == std::string::npos, "one-line error");
    braid::fuzz::Require(m.rfind("fuzz.toml", 0) == 0, "error names the file");
  }
  return 0;
}
