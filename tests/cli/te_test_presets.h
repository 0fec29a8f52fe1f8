// Preset entries for the TransformerEngine export tests (unit and end to end).
#pragma once

#include <string>

#include "braid/presets.h"

namespace braid::testing_te {

// An h100-sxm preset of `w` with the given algorithm and chunks; the figures
// are plausible and fixed.
inline Preset TePreset(const Workload& w, const std::string& layer, Algorithm a, int chunks) {
  Preset p;
  p.key.gpu = "h100-sxm";
  p.key.topology = "h100-sxm";
  p.key.workload = w;
  p.key.layer = layer;
  p.config.algorithm = a;
  p.config.chunks = chunks;
  p.time_ns = 100000;
  p.speedup_vs_serial = 1.25;
  p.speedup_vs_te_default = 1.05;
  p.overlap_ratio = 0.8;
  p.backend = "sim";
  p.braid_version = "0.1.0";
  p.date = "2026-11-21T12:00:00Z";
  return p;
}

}  // namespace braid::testing_te
