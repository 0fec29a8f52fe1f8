// Preset entries for the TransformerEngine export tests (unit and end to end).
#pragma once

#include <functional>
#include <string>

#include "braid/layer_workload.h"
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
  // TE's own knobs for the methods TE has (te_ub_cfgs.h TeDefaultOptions),
  // so that an export of them is exact: ring_exchange on the copy engine
  // (num_sm 1, which a copy-engine all-gather does not use), pipeline and
  // bulk on 16 SMs with the GEMM on the rest.
  switch (a) {
    case Algorithm::kRing:
    case Algorithm::kDirect:
      p.config.comm_engine = CommEngine::kCopyEngine;
      p.config.comm_sms = w.op == Op::kAgGemm ? 0 : 1;
      break;
    case Algorithm::kChunked:
    case Algorithm::kBulk:
      p.config.comm_sms = 16;
      p.config.sm_margin = true;
      break;
    default:
      break;
  }
  p.time_ns = 100000;
  p.speedup_vs_serial = 1.25;
  p.speedup_vs_te_default = 1.05;
  p.overlap_ratio = 0.8;
  p.backend = "sim";
  p.braid_version = "0.1.0";
  p.date = "2026-11-21T12:00:00Z";
  return p;
}

// Every GEMM overlapped as TE overlaps a training step by default: ring
// all-gathers, pipelined reduce-scatters, bulk column backward, ring row
// dgrads feeding external wgrads.
inline Algorithm TeLikeMethod(const LayerOp& op) {
  switch (op.pass) {
    case Pass::kFprop:
      return op.column ? Algorithm::kRing : Algorithm::kChunked;
    case Pass::kDgrad:
      return op.column ? Algorithm::kBulk : Algorithm::kRing;
    case Pass::kWgrad:
      return op.column ? Algorithm::kBulk : Algorithm::kExternal;
  }
  return Algorithm::kSerial;
}

// One exact preset per GEMM of `lw` that has a ub_cfgs key (a train block's
// row-parallel wgrads included), keyed by its pass and named
// "<model>/<op>", with the algorithm `method_of` gives it (chunked: 4 chunks).
inline PresetFile LayerPresets(const LayerWorkload& lw, const std::function<Algorithm(const LayerOp&)>& method_of) {
  PresetFile f;
  for (const LayerOp& op : lw.ops) {
    if (op.kind == LayerOpKind::kAttention) continue;
    const Algorithm a = method_of(op);
    Preset p = TePreset(op.gemm, lw.model.name + "/" + op.name, a, a == Algorithm::kChunked ? 4 : 1);
    p.key.pass = op.pass;
    f.presets.push_back(p);
  }
  return f;
}

}  // namespace braid::testing_te
