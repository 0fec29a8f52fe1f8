// The configurations the tuner may try for one GEMM op: every valid
// combination of the knobs that matter on the chosen backend.
//
//   algorithm    serial, chunked, ring, bidir_ring, direct (not gemm_ar), fused (sim and cuda; not gemm_ar)
//   chunks       chunked 2, 3, 4, 6, 8; ring / bidir_ring / direct sub-chunks 1, 2, 4
//   splits       chunked: uneven 4-way weights, light first (1,2,2,2) or light
//                last (2,2,2,1): a small first slice starts an all-gather GEMM
//                sooner, a small last slice shortens a reduce-scatter tail
//   comm lanes   1 or 2 (bidir_ring: 2)
//   priorities   comm lanes above the GEMM's stream, or equal
//   comm SMs     collectives and reduces: backend default, 8, 16, 32;
//                fused: 4, 8, 12, 16, 20, 24, 32, 40, 48, 64
//   comm engine  SMs, or the copy engine where data only moves (sends,
//                all-gathers)
//
// Knobs that cannot change a backend's result are not varied on it (the cpu
// backend has no SMs, priorities or copy engines; a copy-engine transfer
// holds no SMs), so no two candidates are the same experiment.
#pragma once

#include <string_view>
#include <vector>

#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/topology.h"
#include "braid/workload.h"

namespace braid {

// Which knobs a backend honours.
struct BackendKnobs {
  bool fused = true;        // runs the fused P2P+GEMM kernel
  bool comm_sms = true;     // comm kernels hold SMs
  bool priorities = true;   // stream priorities
  bool copy_engine = true;  // copy-engine transfers
  // The cuda fused kernel's limits (braid/fused_tables.h: kMaxCommCtas, its
  // tile loop is bf16/fp16 only); 0 / true where the backend has none.
  int fused_max_comm_sms = 0;
  bool fused_fp32 = true;
};

// sim honours everything; cuda everything, fused within its kernel's limits; cpu
// none of the GPU-only knobs.
// Unknown names are Invalid (ParseBackendKind's message).
Result<BackendKnobs> KnobsOfBackend(std::string_view backend);

// Knobs for ranks that share one GPU (cuda --loopback): each rank's fused
// kernel may hold only gpu_sms / ranks SMs and must keep one for its GEMM,
// so larger comm-SM budgets would only fail at trial time. Fused is dropped
// where a rank's share has no SM to spare.
BackendKnobs KnobsOnSharedGpu(BackendKnobs knobs, int gpu_sms, int ranks);

// Every candidate, serial first, in a fixed order; each passes
// OverlapConfig::Validate(w). `gpu_sms`, when > 0, caps the comm SMs tried.
std::vector<OverlapConfig> BuildSearchSpace(const Workload& w, const BackendKnobs& knobs, int gpu_sms = 0);

}  // namespace braid
