// Loopback on the simulator: what a cuda loopback run (CudaBackendOptions::
// loopback) costs when all P ranks share one GPU. The cuda backend then moves
// every transfer as a device-to-device copy into the receiver's inbox with a
// stream-ordered flag (kernels/cuda/host/transfer_layout.h), collectives as
// P−1 such copies per rank (plus an add kernel for reductions), and the fused
// kernel of each rank gets a P-th of the SMs. So the model is:
//   - one GPU's state for every rank (sim_engine.h): GEMMs of all ranks share
//     its SMs, every kernel and copy shares its HBM;
//   - a copy of B bytes reads and writes 2B of HBM. Measured on an H100
//     (../shared/calibration/h100-measured copy_engine.csv: 2 GiB in 1.431 ms,
//     3001 GB/s read + write) one large copy-engine copy runs at the
//     achievable HBM rate hbm_gbs × hbm_efficiency, and beside a GEMM it
//     weighs hbm_ce_weight times its own traffic (the fitted
//     GemmBesideCopyEngineNs). A loopback run's copies, all ranks' together,
//     reach the GPU file's loopback_copy_efficiency of that rate (fitted on
//     an H200 to the comm-alone times of presets/measured/h200). Their demand
//     is weight × that rate, and their work is scaled so that alone they take
//     traffic / rate; beside a GEMM both slow as fitted, and n copies share
//     the rate evenly (however many run, they demand it once);
//   - a memory kernel (a reduction's add) is an SM kernel: it streams at the
//     achievable HBM rate as MemoryKernelNs has it, on the copy port;
//   - while GEMMs and copies (or memory kernels) run together they share the
//     GPU's time, the copies a share copies / (copies + GEMMs) of it, of
//     which the GPU file's loopback_overlap is hidden (0.1 on the H100 and
//     H200, fitted to their loopback runs: hardly any; sim_engine.cc
//     UpdateHbmFactor);
//   - the ranks' GEMMs fill the SMs one GEMM's share leaves, so none gets
//     the clock boost of fewer busy SMs (GemmCost::BodyNs);
//   - each rank's GEMM is chosen and gridded for the whole GPU (the cuda
//     backend sets no SM count target in loopback), so on its share of the
//     SMs it runs no faster than its full-GPU time over that share
//     (sim_engine.cc RateOf);
//   - each rank's GEMM over a region of several pieces (a serial or
//     chunked plan's slice of every rank block) is one GEMM per piece, back
//     to back, as the cuda backend calls cuBLASLt (step_issue.cc Gemm);
//   - the ranks are threads of one process calling through one driver:
//     every host call of a rank (LoopbackHostCalls) takes its thread's
//     loopback_rank_launch_us beside the other threads' and the driver's
//     loopback_launch_us in turns with every rank's, and a step starts no
//     sooner than the calls before it (sim_engine_load.cc; 5 and 0.375 µs
//     on the H200, fitted to its training steps, which make hundreds of
//     calls per rank);
//   - no links: the topology gives only the GPU, and holds no ranks.
#pragma once

#include <cstdint>

#include "braid/gpu_files.h"
#include "braid/plan.h"
#include "braid/sim_models.h"
#include "braid/status.h"

namespace braid::sim {

// One device copy (or a collective's copies) as the engine runs it: a fixed
// part, then `work_ns` at rate 1 demanding `hbm_demand` bytes per ns.
struct LoopbackCopy {
  double latency_ns = 0;
  double work_ns = 0;
  double hbm_demand = 0;
};

// A send of `bytes` as a device copy: the flag wait (event_wait_us) and the
// copy at the achievable HBM rate (2 × bytes of traffic).
LoopbackCopy LoopbackTransfer(const GpuSpec& gpu, int64_t bytes);

// A reduce or copy kernel moving `bytes` of HBM traffic (MemoryKernelNs's
// bytes) at the achievable HBM rate, as MemoryKernelNs (launch not
// included); every rank's memory kernels share the copy port with the
// copies.
LoopbackCopy LoopbackMemoryKernel(const GpuSpec& gpu, int64_t bytes);

// A collective of `bytes` (nccl-tests convention) over `ranks` ranks on the
// one GPU, as one activity of all of them: each rank copies its
// BusBwFactor(kind, ranks) × bytes to its peers (issued one after another:
// ranks − 1 launches, then a flag wait), and a reduction's add kernel reads
// every slot and writes its share (bytes × (1 + 1/ranks) per rank).
LoopbackCopy LoopbackCollective(const GpuSpec& gpu, CollectiveKind kind, int64_t bytes, int ranks);

// The SMs each rank's fused kernel gets in loopback (the cuda backend's
// FusedSmsPerRank): sm_count / ranks.
int LoopbackFusedSms(const GpuSpec& gpu, int ranks);

// The fused kernels of all ranks at once (one activity): each rank's on
// LoopbackFusedSms SMs, min(comm_sms, that − 1) of them moving its tiles as
// device copies at a P-th of the HBM copy rate (every rank copies at once),
// the rest computing (FusedKernelTime on that share). hbm_bytes: all ranks'.
// @pre CheckLoopback passed for this fused plan.
FusedTime LoopbackFusedTime(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, CollectiveKind kind,
                            int64_t send_bytes, int ranks, int comm_sms, double contention);

// The host calls (launches, copies, flag writes and waits, event records
// and waits) the cuda backend makes for step `s` of a rank in loopback
// (kernels/cuda/host/step_issue.cc over flags): its `cross_lane_waits`
// event waits, the work's calls and the done record. A GEMM over a region
// of several pieces is one call per piece; a collective over `ranks` ranks
// is a copy and a flag write to each peer, the own part, then a flag wait
// and a copy or add per peer; a region of strided pieces moves one copy per
// piece. What the ranks' launches through the one driver are counted in
// (GpuSpec::loopback_launch_us).
int LoopbackHostCalls(const Step& s, int ranks, int cross_lane_waits);

// Whether a plan can run in loopback on `gpu`: every rank needs an SM of its
// own (tp <= sm_count), and a fused plan two per rank (one for its transfers,
// one for its GEMM). Invalid otherwise, naming `tp` and the GPU.
Status CheckLoopback(const GpuSpec& gpu, const Plan& plan);

}  // namespace braid::sim
