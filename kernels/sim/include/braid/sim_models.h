// The sim backend's analytical models: the time of one GEMM on a GPU and of
// one transfer or collective on a topology's links. Pure functions of the
// data files (presets/hardware, presets/topologies); the discrete-event
// engine (sim_backend.h) builds on them.
#pragma once

#include <cstdint>

#include "braid/gpu_files.h"
#include "braid/plan.h"
#include "braid/topology.h"
#include "braid/workload.h"

namespace braid::sim {

// One GEMM's static cost. tiles = ceil(M/tile_m)·ceil(N/tile_n) spread in
// waves over the SMs it gets (skinny M or N shrink the tile to 64, and K is
// split while the tiles cannot fill the SMs, as cuBLAS heuristics do); a tile takes tile_ns; memory_ns is the bytes
// of A, B and C over the achievable HBM bandwidth.
struct GemmCost {
  int64_t tiles = 0;
  double tile_ns = 0;
  double memory_ns = 0;
  double launch_ns = 0;
  double hbm_bytes = 0;

  // Kernel time (without launch) on `sms` SMs: waves·tile_ns and memory_ns
  // combined as a 2-norm roofline (they overlap, but not perfectly: the
  // skinny A100 point of shared/calibration is neither bound alone).
  // @pre sms >= 1
  double BodyNs(int sms) const;
  int64_t Waves(int sms) const { return (tiles + sms - 1) / sms; }
};

GemmCost GemmCostOf(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype);

// Predicted time of C[M×N] = A[M×K]·B[K×N] with `sms` SMs (0 = all), launch included.
double GemmTimeNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int sms = 0);

// A memory-bound elementwise kernel (reduce, copy) touching `bytes`.
double MemoryKernelNs(const GpuSpec& gpu, int64_t bytes);

// A transfer or collective: a fixed latency part and a bandwidth part that
// contention can stretch.
struct CommTime {
  double latency_ns = 0;
  double transfer_ns = 0;
  double total_ns() const { return latency_ns + transfer_ns; }
};

// The link between ranks a and b (intra-node, or inter-node when the two
// GPUs sit on different nodes; rank r is GPU r).
const Link& LinkBetween(const Topology& topo, int a, int b);
// The slowest link a collective over the first `ranks` GPUs crosses.
const Link& CollectiveLink(const Topology& topo, int ranks);
// Which port of a GPU a link uses: 0 intra-node, 1 inter-node, 2 NVLink pair.
int PortClass(const Topology& topo, const Link& link);

// One message of `bytes` over `link`: the faster of the LL and Simple
// protocols (NCCL's tuner picks the faster one too).
CommTime P2pTime(const Link& link, int64_t bytes);

// nccl-tests convention: `bytes` is the larger side (all_gather output,
// reduce_scatter input, all_reduce buffer). Ring: all_gather /
// reduce_scatter take P−1 steps of bytes/P, all_reduce 2(P−1); on NVSwitch
// with NVLS figures, all_reduce may use NVLS instead. The fastest wins.
CommTime CollectiveTime(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);
double CollectiveTimeNs(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);

// busbw / algbw: 2(n−1)/n for all_reduce, (n−1)/n otherwise.
double BusBwFactor(CollectiveKind kind, int ranks);

// SMs one comm kernel holds: config.comm_sms when set, else the topology's
// NCCL channels, else 16.
int CommSms(const Topology& topo, int config_comm_sms);

// The fused kernel (StepKind::kFused) on one rank: `comm_sms` SMs move tiles
// to the peers while the other SMs compute the rank's GEMM (m×n×k), and a
// tile waits on its ready flag until its data has landed.
//   comm: link latency + send_bytes / min(link bandwidth, comm_sms × per-SM
//     copy bandwidth), where the per-SM copy bandwidth is the link's Simple
//     bandwidth over the NCCL channel count that saturates it (the
//     topology's nccl_channels, else 16): as many copy SMs as NCCL uses
//     channels reach the link's rate, fewer reach that share of it.
//   gemm: GemmCost::BodyNs on sm_count − comm_sms SMs; wave: one wave of it.
//   total = max(gemm, comm + wave): the last tile's data lands after comm
//     and still needs one wave (launch not included).
// hbm_bytes: the GEMM's own traffic plus the tiles read out and written in.
struct FusedTime {
  double gemm_ns = 0, comm_ns = 0, wave_ns = 0, total_ns = 0;
  double hbm_bytes = 0;
};
// gemm_lost_sms: the SMs the GEMM part loses to the comm part (-1 = comm_sms;
// see CommSmsLost for the contention model), so gemm runs on
// sm_count − gemm_lost_sms SMs (at least 1).
// @pre 1 <= comm_sms < gpu.sm_count
FusedTime FusedKernelTime(const GpuSpec& gpu, const Topology& topo, int64_t m, int64_t n, int64_t k,
                          DType dtype, int64_t send_bytes, int ranks, int comm_sms, int gemm_lost_sms = -1);

// SM contention: the SMs a GEMM loses to a concurrent comm kernel holding
// `comm_sms` SMs (or, in the fused kernel, to its comm part):
// round(comm_sms × contention) clamped to [0, sm_count − 1]. contention 1.0
// (the default model) is comm_sms itself for any comm_sms < sm_count;
// above 1, a comm kernel costs the GEMM more than its own SMs (L2, HBM and
// scheduler interference), below 1 less.
int CommSmsLost(int comm_sms, double contention, int sm_count);

}  // namespace braid::sim
