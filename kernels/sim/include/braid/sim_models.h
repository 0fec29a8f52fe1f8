// The sim backend's analytical models: the time of one GEMM on a GPU and of
// one transfer or collective on a topology's links. Pure functions of the
// data files (catalog/hardware, catalog/topologies); the discrete-event
// engine (sim_backend.h) builds on them.
#pragma once

#include <cstdint>
#include <string_view>

#include "braid/gpu_files.h"
#include "braid/plan.h"
#include "braid/topology.h"
#include "braid/workload.h"

namespace braid::sim {

// One GEMM's static cost: the kernel cuBLAS would pick and what it costs.
//
// Files with [[kernel]] candidates (the kernel-choice model): every
// candidate tile is tried as a data-parallel grid (one CTA per tile, split-K
// by 2…16 while the tiles cannot fill the SMs, partials through HBM) and, by
// shape as CUTLASS's Sm90 heuristic does, as a persistent stream-K grid of
// sm_count CTAs (full waves data-parallel, the remainder shared evenly by all
// CTAs) only past one wave of tiles and, below two waves, only while the
// second wave is under half full; the fastest on all SMs is chosen, as
// cuBLAS's heuristic does without knowing that SMs are held, so a grid of
// fewer CTAs than SMs loses nothing until held SMs cut into it. A tile takes
// 2·tm·tn·K_slice / (per-SM peak · efficiency · board_rate) plus
// tile_overhead_us. On `sms` SMs the compute part is the units of work the
// grid needs there (floor(CTAs / sms) full waves plus a partial wave on the
// CTAs left, or for stream-K the full waves re-packed plus
// ceil(sm_count / sms) rounds of the remainder share), each wave over the
// clock boost (sm_count / busy SMs)^sm_boost_exponent ≤ sm_boost_cap that a
// power-limited board gives fewer busy SMs; the memory part is the bytes of
// A, B, C (and split-K partials) over what the busy SMs can pull
// (CopyBandwidthGbs); the kernel takes the larger, plus for split-K the
// partials' share split_k_traffic read and written through HBM.
//
// Files without candidates keep the single-tile model: tiles of
// tile_m × tile_n (64 for skinny M or N), split-K while the tiles cannot fill
// the SMs, compute and memory combined as a 2-norm.
struct GemmCost {
  int64_t tiles = 0;   // CTAs of the grid (data-parallel) or tiles (stream-K)
  double tile_ns = 0;  // one tile at the board's full-load clock
  double memory_ns = 0;
  double launch_ns = 0;
  double hbm_bytes = 0;    // A, B, C (+ partials): the memory floor's bytes
  double hbm_traffic = 0;  // what the kernel really moves through HBM (with L2 misses)
  // Kernel-choice model only (choice = false: the 2-norm single-tile model).
  bool choice = false, stream_k = false;
  int grid_sms = 0;  // the SM count the grid was sized for
  int tile_m = 0, tile_n = 0, split_k = 1;
  double fixup = 0, boost_exponent = 0, boost_cap = 1, sm_copy_gbs = 0, hbm_gbs = 0;
  double reduce_ns = 0;  // split-K: summing the partials after the main loop

  // Kernel time (without launch) on `sms` SMs.
  // @pre sms >= 1
  double BodyNs(int sms) const;
  // Waves of tiles on `sms` SMs (stream-K: its work units, rounded up).
  int64_t Waves(int sms) const;
};

// grid_sms: the SMs the kernel is chosen and sized for (0 = all; the fused
// kernel's GEMM part knows its own share).
GemmCost GemmCostOf(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int grid_sms = 0);

// Predicted time of C[M×N] = A[M×K]·B[K×N] with `sms` SMs (0 = all), launch included.
double GemmTimeNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int sms = 0);

// Bandwidth (GB/s, bytes read + written) that `sms` SMs copying reach: the
// HBM's achievable rate approached exponentially from sm_copy_gbs per SM
// (copy_kernel_bw.csv's shape); unlimited (the HBM rate) when sm_copy_gbs = 0.
double CopyBandwidthGbs(const GpuSpec& gpu, int sms);

// A GEMM beside a kernel that holds `held_sms` SMs: `copying` holders also
// pull CopyBandwidthGbs(held) from HBM, which the two share in proportion to
// their demand, the copy's weighted by hbm_copy_weight; the GEMM's demand is
// GemmCost::hbm_traffic over its time. Launch included.
// @pre 0 <= held_sms < gpu.sm_count
double GemmBesideHeldSmsNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int held_sms,
                           bool copying);
// A GEMM on all SMs beside a copy-engine copy, which takes no SMs but pulls
// the HBM's achievable rate (hbm_gbs × hbm_efficiency), weighted by
// hbm_ce_weight. Launch included.
double GemmBesideCopyEngineNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype);

// A memory-bound elementwise kernel (reduce, copy) touching `bytes`.
double MemoryKernelNs(const GpuSpec& gpu, int64_t bytes);

// The share of its own rate an activity demanding `demand` bytes per ns of
// HBM gets when it runs alone: min(1, achievable HBM rate / demand). The
// engine shares HBM in proportion to weighted demands, so a weighted copy
// alone would run at 1 / weight; its work is scaled by this share so that
// alone it takes its own time.
double HbmShareAlone(const GpuSpec& gpu, double demand);

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
// GB/s a comm kernel on `sms` SMs (NCCL channels' CTAs, userbuffers' num_sm
// CTAs, an SM copy kernel) moves to its peers: what those SMs copy
// (CopyBandwidthGbs / 2: each byte is read here and written there), the
// curve fitted to a board's copy-kernel rows (copy_kernel_bw.csv); on a GPU
// file without one, sms × comm_sm_gbs; unlimited when it has neither.
double SmCommGbs(const GpuSpec& gpu, int sms);

// The same message moved by a comm kernel on `sms` SMs: no faster than
// SmCommGbs (sms <= 0: not paced by SMs, P2pTime).
CommTime SmDrivenP2pTime(const GpuSpec& gpu, const Link& link, int64_t bytes, int sms);

// The algorithm a collective runs as NCCL 2.28 picks it: the faster of the
// ring and, on an NVSwitch link with NVLS figures, NVLS (multimem).
enum class CollectiveAlgo { kRing, kNvls };
std::string_view CollectiveAlgoName(CollectiveAlgo a);

struct CollectiveChoice {
  CommTime time;
  CollectiveAlgo algo = CollectiveAlgo::kRing;
};

// nccl-tests convention: `bytes` is the larger side (all_gather output,
// reduce_scatter input, all_reduce buffer). Ring: all_gather /
// reduce_scatter take P−1 steps of bytes/P, all_reduce 2(P−1). NVLS: one
// start-up (nvls_latency_us), then a GPU's side of the switch moves the
// whole buffer at nvls_efficiency × bandwidth: all_reduce sends and
// receives it once each way, all_gather receives it, reduce_scatter sends
// it (NVIDIA/nccl#1083), so on one H100 node NVLS wins large all_reduces and
// the ring wins the other two, as NCCL's own tuner decides there. NCCL
// picks by time alone; so does this, on `sms` SMs as CollectiveTimeOnSms
// paces them (<= 0: unpaced).
CollectiveChoice ChooseCollective(const GpuSpec& gpu, const Topology& topo, CollectiveKind kind, int64_t bytes,
                                  int ranks, int sms);
// The same unpaced, every algorithm on its own channels (no GPU read): what
// nccl-tests would report.
CollectiveChoice ChooseCollective(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);
// The ring alone: what copy-engine collectives (TE userbuffers' all-gather)
// run, which are no NCCL kernels and never NVLS.
CommTime RingCollectiveTime(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);
// The SMs an algorithm's kernels hold: config_comm_sms when set, else NVLS's
// nvls_channels (when the collective's link gives them) or the topology's NCCL channels
// (CommSms).
int CollectiveSms(const Topology& topo, int ranks, CollectiveAlgo algo, int config_comm_sms);
// The HBM bytes one rank reads and writes for it: a ring reads and writes
// its share of the ring traffic (2 × bytes × BusBwFactor); NVLS reads and
// writes the buffer once (all_reduce: 2 × bytes) or the buffer and one
// rank's share (all_gather, reduce_scatter: bytes × (1 + 1/ranks)).
double CollectiveHbmBytes(CollectiveKind kind, CollectiveAlgo algo, int64_t bytes, int ranks);

// ChooseCollective's time, unpaced (the nccl-tests figure).
CommTime CollectiveTime(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);
double CollectiveTimeNs(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks);
// ChooseCollective's time on `sms` SMs (NCCL channels, userbuffers'
// num_sm CTAs): a ring's bandwidth part no faster than SmCommGbs(sms) where
// its Simple rate on the slowest hop would allow more; NVLS's in proportion
// to sms below its channel count (NCCL's model: busBw = channels × per
// channel). sms <= 0 (a copy-engine collective): CollectiveTime.
CommTime CollectiveTimeOnSms(const GpuSpec& gpu, const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks,
                             int sms);

// busbw / algbw: 2(n−1)/n for all_reduce, (n−1)/n otherwise.
double BusBwFactor(CollectiveKind kind, int ranks);

// SMs one comm kernel holds: config.comm_sms when set, else the topology's
// NCCL channels, else 16.
int CommSms(const Topology& topo, int config_comm_sms);

// The fused kernel (StepKind::kFused) on one rank: `comm_sms` SMs move tiles
// to the peers while the other SMs compute the rank's GEMM (m×n×k), and a
// tile waits on its ready flag until its data has landed.
//   comm: link latency + send_bytes / min(link bandwidth, comm_sms × per-SM
//     transfer rate), where the per-SM rate is the GPU file's
//     fused_sm_transfer_gbs (else the link's Simple bandwidth over the NCCL
//     channel count that saturates it: the topology's nccl_channels, else
//     16), and never more than those SMs copy (CopyBandwidthGbs / 2); never
//     faster than the collective `kind` moving the same bytes (CollectiveTime).
//   gemm: GemmCost::BodyNs on sm_count − comm_sms SMs over the GPU file's
//     fused_gemm_efficiency (<= 1); wave: one wave of it.
//   total = max(gemm, comm + tail) (launch not included): the last
//     transfer lands after comm, and what waits for it still runs. An
//     all-gather's tiles wait for their block of rows, which arrive one
//     block at a time in the plan's order, so tail = the last block's tiles,
//     max(one wave, gemm / ranks); a reduce-scatter computes its own block
//     last, so tail = one wave (the last partials' reduce).
// hbm_bytes: the GEMM's own traffic plus the tiles read out and written in.
struct FusedTime {
  double gemm_ns = 0, comm_ns = 0, wave_ns = 0, total_ns = 0;
  double hbm_bytes = 0;
};
// gemm_lost_sms: the SMs the GEMM part loses to the comm part (-1 = comm_sms;
// see CommSmsLost for the contention model), so gemm runs on
// sm_count − gemm_lost_sms SMs (at least 1).
// @pre 1 <= comm_sms < gpu.sm_count
FusedTime FusedKernelTime(const GpuSpec& gpu, const Topology& topo, int64_t m, int64_t n, int64_t k, DType dtype,
                          CollectiveKind kind, int64_t send_bytes, int ranks, int comm_sms, int gemm_lost_sms = -1);

// SM contention: the SMs a GEMM loses to a concurrent comm kernel holding
// `comm_sms` SMs (or, in the fused kernel, to its comm part):
// round(comm_sms × contention) clamped to [0, sm_count − 1]. contention 1.0
// (the default model) is comm_sms itself for any comm_sms < sm_count;
// above 1, a comm kernel costs the GEMM more than its own SMs (L2, HBM and
// scheduler interference), below 1 less.
int CommSmsLost(int comm_sms, double contention, int sm_count);

}  // namespace braid::sim
