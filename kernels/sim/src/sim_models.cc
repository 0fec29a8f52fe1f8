#include "braid/sim_models.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace braid::sim {

namespace {
constexpr int kDefaultChannels = 16;
constexpr int64_t kMinSplitK = 256;  // smallest K slice per split-K CTA (assumption)
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

double GemmCost::BodyNs(int sms) const {
  sms = std::max(sms, 1);
  if (!choice) {
    const double compute = double(Waves(sms)) * tile_ns;
    return std::sqrt(compute * compute + memory_ns * memory_ns);
  }
  // Power-limited clocks: `busy` SMs of the grid's run at
  // (grid_sms / busy)^boost_exponent, at most boost_cap.
  const auto slow = [&](int64_t busy) {
    return std::max(1.0 / boost_cap,
                    std::pow(double(std::min<int64_t>(busy, grid_sms)) / double(grid_sms), boost_exponent));
  };
  double compute = 0;
  if (stream_k) {
    const int64_t full = tiles / grid_sms, rest = tiles - full * grid_sms;
    double units = double(CeilDiv(full * grid_sms, sms));
    if (rest > 0) units += double(CeilDiv(grid_sms, sms)) * double(rest) / double(grid_sms) + fixup;
    compute = units * tile_ns * slow(sms);
  } else {
    // Full waves on all `sms`, then the CTAs left over as one partial wave
    // on as many SMs (which clock higher): a grid of fewer CTAs than SMs
    // loses nothing to held SMs until they cut into the SMs it uses.
    const int64_t full = tiles / sms, rest = tiles - full * sms;
    compute = tile_ns * (double(full) * slow(sms) + (rest > 0 ? slow(rest) : 0.0));
  }
  const int busy = int(std::min<int64_t>(tiles, sms));
  double bw = hbm_gbs;
  if (sm_copy_gbs > 0) bw = hbm_gbs * -std::expm1(-double(busy) * sm_copy_gbs / hbm_gbs);
  return std::max(compute, hbm_bytes / bw) + reduce_ns;
}

int64_t GemmCost::Waves(int sms) const {
  sms = std::max(sms, 1);
  if (!choice || !stream_k) return CeilDiv(tiles, sms);
  return std::max<int64_t>(1, int64_t(std::ceil(double(tiles) / double(grid_sms) * double(CeilDiv(grid_sms, sms)))));
}

namespace {

// C's element size: an FP8 GEMM writes bf16.
int OutBytesPerElement(DType dtype) { return DTypeBytes(GemmOutDType(dtype)); }

GemmCost SingleTileCost(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype) {
  GemmCost c;
  // Skinny shapes get smaller tiles (down to 64, the smallest tensor-core
  // CTA tile cuBLAS picks), and split-K when the tiles cannot fill the SMs.
  const int64_t tm = std::min<int64_t>(gpu.tile_m, std::max<int64_t>(64, CeilDiv(m, 64) * 64));
  const int64_t tn = std::min<int64_t>(gpu.tile_n, std::max<int64_t>(64, CeilDiv(n, 64) * 64));
  const int64_t tiles = CeilDiv(m, tm) * CeilDiv(n, tn);
  const int64_t split = std::max<int64_t>(1, std::min<int64_t>(gpu.sm_count / tiles, k / kMinSplitK));
  c.tiles = tiles * split;
  // Per-SM rate in FLOP/ns: TFLOP/s = 1e3 FLOP/ns.
  const double sm_flops_per_ns =
      gpu.PeakTflops(dtype) * 1e3 / double(gpu.sm_count) * gpu.Efficiency(dtype) * gpu.board_rate;
  c.tile_ns = 2.0 * double(tm) * double(tn) * double(CeilDiv(k, split)) / sm_flops_per_ns;
  c.hbm_bytes = double(m * k + k * n) * double(DTypeBytes(dtype)) + double(m * n) * double(OutBytesPerElement(dtype));
  c.hbm_traffic = c.hbm_bytes;
  c.memory_ns = c.hbm_bytes / (gpu.hbm_gbs * gpu.hbm_efficiency);  // GB/s = bytes/ns
  c.launch_ns = gpu.launch_us * 1e3;
  return c;
}

constexpr int kSplits[] = {1, 2, 3, 4, 6, 8, 12, 16};
constexpr int64_t kMinKSlice = 256;

// The fastest candidate on all SMs (see GemmCost).
GemmCost ChosenKernelCost(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int grid_sms) {
  const double elem = double(DTypeBytes(dtype)), out_elem = double(OutBytesPerElement(dtype));
  const double dtype_scale = gpu.efficiency_bf16 > 0 ? gpu.Efficiency(dtype) / gpu.efficiency_bf16 : 1.0;
  GemmCost best;
  double best_ns = 0;
  for (const GemmKernel& kern : gpu.kernels) {
    const int64_t tiles = CeilDiv(m, kern.tile_m) * CeilDiv(n, kern.tile_n);
    const double sm_flops_per_ns =
        gpu.PeakTflops(dtype) * 1e3 / double(gpu.sm_count) * kern.efficiency * dtype_scale * gpu.board_rate;
    for (int stream_k = 0; stream_k < 2; ++stream_k) {
      for (int split : kSplits) {
        if (split > 1 && (stream_k || tiles * split > 2 * grid_sms || k / split < kMinKSlice)) continue;
        // Stream-K only past one wave of tiles, and below two waves only
        // while the second wave is less than half full (CUTLASS's Sm90
        // stream-K heuristic); else the grid is data-parallel (split-K where
        // that fills more SMs), sized for all SMs but no more CTAs.
        if (stream_k && (tiles <= grid_sms || (tiles < 2 * grid_sms && 2 * (tiles - grid_sms) >= grid_sms))) continue;
        GemmCost c;
        c.choice = true;
        c.stream_k = stream_k != 0;
        c.grid_sms = grid_sms;
        c.tile_m = kern.tile_m;
        c.tile_n = kern.tile_n;
        c.split_k = split;
        c.tiles = tiles * split;
        c.tile_ns =
            2.0 * kern.tile_m * kern.tile_n * double(CeilDiv(k, split)) / sm_flops_per_ns + gpu.tile_overhead_us * 1e3;
        c.fixup = gpu.stream_k_fixup;
        c.boost_exponent = gpu.sm_boost_exponent;
        c.boost_cap = gpu.sm_boost_cap;
        c.sm_copy_gbs = gpu.sm_copy_gbs;
        c.hbm_gbs = gpu.hbm_gbs * gpu.hbm_efficiency;
        // Split-K partials stay in L2. What contends with other HBM users is
        // the share of the tiles' panel re-reads the L2 misses (fitted: it
        // follows the FLOP rate, not the A, B, C bytes).
        c.hbm_bytes = double(m * k + k * n) * elem + double(m * n) * out_elem;
        c.hbm_traffic =
            gpu.l2_miss * double(m) * double(n) * double(k) * elem * (1.0 / kern.tile_n + 1.0 / kern.tile_m);
        c.memory_ns = c.hbm_bytes / c.hbm_gbs;
        c.reduce_ns = gpu.split_k_traffic * double(split - 1) * double(m) * double(n) * 8.0 / c.hbm_gbs;
        c.launch_ns = gpu.launch_us * 1e3;
        const double t = c.BodyNs(grid_sms);
        if (best.tiles == 0 || t < best_ns) {
          best = c;
          best_ns = t;
        }
      }
    }
  }
  return best;
}

}  // namespace

GemmCost GemmCostOf(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int grid_sms) {
  const int sms = grid_sms > 0 ? std::min(grid_sms, gpu.sm_count) : gpu.sm_count;
  return gpu.kernels.empty() ? SingleTileCost(gpu, m, n, k, dtype) : ChosenKernelCost(gpu, m, n, k, dtype, sms);
}

double CopyBandwidthGbs(const GpuSpec& gpu, int sms) {
  const double hbm = gpu.hbm_gbs * gpu.hbm_efficiency;
  if (gpu.sm_copy_gbs <= 0) return hbm;
  return hbm * -std::expm1(-double(std::max(sms, 0)) * gpu.sm_copy_gbs / hbm);
}

namespace {

// `body` stretched while a copy pulls `copy_gbs` beside the GEMM.
// `weight`: hbm_copy_weight or hbm_ce_weight.
double StretchedByCopy(const GpuSpec& gpu, const GemmCost& c, double body, double copy_gbs, double weight) {
  if (body <= 0 || copy_gbs <= 0) return body;
  const double demand = c.hbm_traffic / body + weight * copy_gbs;
  const double hbm = gpu.hbm_gbs * gpu.hbm_efficiency;
  return demand > hbm ? body * demand / hbm : body;
}

}  // namespace

double GemmBesideHeldSmsNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int held_sms,
                           bool copying) {
  const GemmCost c = GemmCostOf(gpu, m, n, k, dtype);
  const double body = c.BodyNs(gpu.sm_count - held_sms);
  return c.launch_ns + StretchedByCopy(gpu, c, body, copying && held_sms > 0 ? CopyBandwidthGbs(gpu, held_sms) : 0,
                                       gpu.hbm_copy_weight);
}

double GemmBesideCopyEngineNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype) {
  const GemmCost c = GemmCostOf(gpu, m, n, k, dtype);
  return c.launch_ns +
         StretchedByCopy(gpu, c, c.BodyNs(gpu.sm_count), gpu.hbm_gbs * gpu.hbm_efficiency, gpu.hbm_ce_weight);
}

double GemmTimeNs(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, int sms) {
  const GemmCost c = GemmCostOf(gpu, m, n, k, dtype);
  return c.launch_ns + c.BodyNs(sms > 0 ? std::min(sms, gpu.sm_count) : gpu.sm_count);
}

double HbmShareAlone(const GpuSpec& gpu, double demand) {
  const double hbm = gpu.hbm_gbs * gpu.hbm_efficiency;
  return demand > hbm ? hbm / demand : 1.0;
}

double MemoryKernelNs(const GpuSpec& gpu, int64_t bytes) {
  return gpu.launch_us * 1e3 + double(bytes) / (gpu.hbm_gbs * gpu.hbm_efficiency);
}

// Two GPUs of one NVLink domain (a node, or an NVL72 rack's trays) talk
// over `intra`; the network joins domains.
const Link& LinkBetween(const Topology& topo, int a, int b) {
  const int per = std::max(topo.domain_gpus(), 1);
  if (a / per != b / per) return topo.inter;
  return topo.has_pair && a / 2 == b / 2 ? topo.pair : topo.intra;
}

// A ring over the ranks is as slow as its slowest hop: the network when it
// spans NVLink domains, the NVLink bridge only for the two GPUs of one pair.
const Link& CollectiveLink(const Topology& topo, int ranks) {
  if (ranks > topo.domain_gpus() && topo.domains() > 1) return topo.inter;
  return topo.has_pair && ranks == 2 ? topo.pair : topo.intra;
}

int PortClass(const Topology& topo, const Link& link) {
  if (&link == &topo.inter) return 1;
  return &link == &topo.pair ? 2 : 0;
}

namespace {

double SimpleLatencyUs(const Link& l) { return l.simple_latency_us > 0 ? l.simple_latency_us : l.latency_us; }

// A ring's per-step latencies (µs) and rates (GB/s) under the two protocols.
struct RingRates {
  double ll_latency_us, simple_latency_us, ll_gbs, simple_gbs;
};

RingRates RatesOf(const Link& l) {
  return {l.latency_us, SimpleLatencyUs(l), l.bandwidth_gbs * l.ll_efficiency, l.bandwidth_gbs * l.simple_efficiency};
}

// `steps` dependent steps each moving `step_bytes`: the faster protocol.
CommTime RingTime(const RingRates& r, int steps, double step_bytes) {
  const CommTime ll{steps * r.ll_latency_us * 1e3, steps * step_bytes / r.ll_gbs};
  const CommTime simple{steps * r.simple_latency_us * 1e3, steps * step_bytes / r.simple_gbs};
  return ll.total_ns() <= simple.total_ns() ? ll : simple;
}

// A ring over `ranks` GPUs of several NVLink domains (HGX: a domain is a
// node). NCCL builds one ring per rail, each leaving a domain through its own
// NIC, so the network carries the domain's NICs (nics_per_node × its nodes)
// × one NIC's rate; the NVLink hops inside the domains carry the same bytes
// and cap it. A chunk crosses the network on domains / ranks of its hops and
// NVLink on the others: the step latency is that mix.
RingRates CrossNodeRates(const Topology& topo, int ranks) {
  const Link &net = topo.inter, &in = topo.intra;
  const int per_domain = std::max(topo.domain_gpus(), 1);
  const int nodes_per_domain = std::max(per_domain / std::max(topo.gpus_per_node, 1), 1);
  const double rails = std::clamp(net.nics_per_node * nodes_per_domain, 1, per_domain);
  const double domains = std::ceil(double(ranks) / double(per_domain));
  const double cross = domains / double(ranks);
  return {cross * net.latency_us + (1 - cross) * in.latency_us,
          cross * SimpleLatencyUs(net) + (1 - cross) * SimpleLatencyUs(in),
          std::min(rails * net.bandwidth_gbs * net.ll_efficiency, in.bandwidth_gbs * in.ll_efficiency),
          std::min(rails * net.bandwidth_gbs * net.simple_efficiency, in.bandwidth_gbs * in.simple_efficiency)};
}

}  // namespace

CommTime P2pTime(const Link& link, int64_t bytes) { return RingTime(RatesOf(link), 1, double(bytes)); }

double SmCommGbs(const GpuSpec& gpu, int sms) {
  const int n = std::max(sms, 1);
  if (gpu.sm_copy_gbs > 0) return CopyBandwidthGbs(gpu, n) / 2.0;
  if (gpu.comm_sm_gbs > 0) return double(n) * gpu.comm_sm_gbs;
  return std::numeric_limits<double>::infinity();
}

CommTime SmDrivenP2pTime(const GpuSpec& gpu, const Link& link, int64_t bytes, int sms) {
  CommTime t = P2pTime(link, bytes);
  if (sms > 0) t.transfer_ns = std::max(t.transfer_ns, double(bytes) / SmCommGbs(gpu, sms));
  return t;
}

CommTime RingCollectiveTime(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks) {
  if (ranks <= 1) return {};
  const Link& l = CollectiveLink(topo, ranks);
  const double step_bytes = double(bytes) / ranks;
  const int steps = kind == CollectiveKind::kAllReduce ? 2 * (ranks - 1) : ranks - 1;
  const bool cross_node = &l == &topo.inter;
  return RingTime(cross_node ? CrossNodeRates(topo, ranks) : RatesOf(l), steps, step_bytes);
}

namespace {

// NVLS runs inside one NVSwitch domain. NCCL runs all_gather and
// reduce_scatter over NVLS across nodes only with CollNet (tuning.cc zeroes
// their bandwidth otherwise); all_reduce keeps the link's own figures, as
// before all_gather and reduce_scatter had any.
bool NvlsRuns(const Topology& topo, const Link& l, CollectiveKind kind) {
  if (l.kind != LinkKind::kNvSwitch || l.nvls_efficiency <= 0) return false;
  return kind == CollectiveKind::kAllReduce || &l != &topo.inter;
}

// The side of the switch that carries the whole buffer sets the time
// (all_reduce: both, once each; all_gather: in; reduce_scatter: out).
CommTime NvlsTime(const Link& l, int64_t bytes) {
  return {l.nvls_latency_us * 1e3, double(bytes) / (l.bandwidth_gbs * l.nvls_efficiency)};
}

// A ring on `sms` SMs: below the ring's Simple rate on its slowest hop,
// every byte waits for the SMs.
CommTime PacedRing(const GpuSpec& gpu, const Topology& topo, CommTime t, int ranks, int sms) {
  const Link& l = CollectiveLink(topo, ranks);
  const double ring_gbs =
      &l == &topo.inter ? CrossNodeRates(topo, ranks).simple_gbs : l.bandwidth_gbs * l.simple_efficiency;
  const double sm_gbs = SmCommGbs(gpu, sms);
  if (sm_gbs < ring_gbs) t.transfer_ns *= ring_gbs / sm_gbs;
  return t;
}

}  // namespace

std::string_view CollectiveAlgoName(CollectiveAlgo a) { return a == CollectiveAlgo::kNvls ? "nvls" : "ring"; }

namespace {

// gpu == nullptr: unpaced (CollectiveTime never reads a GPU).
CollectiveChoice Choose(const GpuSpec* gpu, const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks,
                        int sms) {
  if (ranks <= 1) return {};
  if (gpu == nullptr) sms = 0;
  CollectiveChoice best{RingCollectiveTime(topo, kind, bytes, ranks), CollectiveAlgo::kRing};
  if (sms > 0) best.time = PacedRing(*gpu, topo, best.time, ranks, sms);
  const Link& l = CollectiveLink(topo, ranks);
  if (NvlsRuns(topo, l, kind)) {
    CommTime nvls = NvlsTime(l, bytes);
    // NCCL's model: busBw = channels × one channel's rate, so fewer SMs than
    // its channels slow it in proportion.
    if (sms > 0) {
      const int channels = CollectiveSms(topo, ranks, CollectiveAlgo::kNvls, 0);
      if (sms < channels) nvls.transfer_ns *= double(channels) / double(sms);
    }
    if (nvls.total_ns() < best.time.total_ns()) best = {nvls, CollectiveAlgo::kNvls};
  }
  return best;
}

}  // namespace

CollectiveChoice ChooseCollective(const GpuSpec& gpu, const Topology& topo, CollectiveKind kind, int64_t bytes,
                                  int ranks, int sms) {
  return Choose(&gpu, topo, kind, bytes, ranks, sms);
}

CollectiveChoice ChooseCollective(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks) {
  return Choose(nullptr, topo, kind, bytes, ranks, 0);
}

int CollectiveSms(const Topology& topo, int ranks, CollectiveAlgo algo, int config_comm_sms) {
  if (config_comm_sms > 0) return config_comm_sms;
  const Link& l = CollectiveLink(topo, ranks);
  if (algo == CollectiveAlgo::kNvls && l.nvls_channels > 0) return l.nvls_channels;
  return CommSms(topo, 0);
}

double CollectiveHbmBytes(CollectiveKind kind, CollectiveAlgo algo, int64_t bytes, int ranks) {
  if (algo == CollectiveAlgo::kRing) return 2.0 * double(bytes) * BusBwFactor(kind, ranks);
  if (kind == CollectiveKind::kAllReduce) return 2.0 * double(bytes);
  return double(bytes) * (1.0 + 1.0 / double(std::max(ranks, 1)));
}

CommTime CollectiveTime(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks) {
  return ChooseCollective(topo, kind, bytes, ranks).time;
}

CommTime CollectiveTimeOnSms(const GpuSpec& gpu, const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks,
                             int sms) {
  return ChooseCollective(gpu, topo, kind, bytes, ranks, sms).time;
}

double CollectiveTimeNs(const Topology& topo, CollectiveKind kind, int64_t bytes, int ranks) {
  return CollectiveTime(topo, kind, bytes, ranks).total_ns();
}

double BusBwFactor(CollectiveKind kind, int ranks) {
  const double n = ranks;
  return kind == CollectiveKind::kAllReduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

FusedTime FusedKernelTime(const GpuSpec& gpu, const Topology& topo, int64_t m, int64_t n, int64_t k, DType dtype,
                          CollectiveKind kind, int64_t send_bytes, int ranks, int comm_sms, int gemm_lost_sms) {
  FusedTime t;
  const int lost = gemm_lost_sms < 0 ? std::max(comm_sms, 1) : gemm_lost_sms;
  const int compute_sms = std::max(1, gpu.sm_count - lost);
  // Its GEMM part is sized for the SMs the kernel leaves it.
  const GemmCost c = GemmCostOf(gpu, m, n, k, dtype, std::max(1, gpu.sm_count - std::max(comm_sms, 1)));
  // Its own tile loop: at most the chosen kernel's rate (fused_gemm_efficiency <= 1).
  t.gemm_ns = c.BodyNs(compute_sms) / gpu.fused_gemm_efficiency;
  t.wave_ns = t.gemm_ns / double(std::max<int64_t>(c.Waves(compute_sms), 1));
  if (ranks > 1 && send_bytes > 0) {
    const Link& l = CollectiveLink(topo, ranks);
    const double link_gbs = l.bandwidth_gbs * l.simple_efficiency;
    const double per_sm_gbs =
        gpu.fused_sm_transfer_gbs > 0 ? gpu.fused_sm_transfer_gbs : link_gbs / double(CommSms(topo, 0));
    double gbs = std::min(link_gbs, double(std::max(comm_sms, 1)) * per_sm_gbs);
    if (gpu.sm_copy_gbs > 0) gbs = std::min(gbs, CopyBandwidthGbs(gpu, comm_sms) / 2.0);
    t.comm_ns = SimpleLatencyUs(l) * 1e3 + double(send_bytes) / gbs;
    // It moves what the collective moves over the same links: no faster.
    const int64_t coll_bytes = send_bytes / (ranks - 1) * ranks;
    t.comm_ns = std::max(t.comm_ns, CollectiveTimeNs(topo, kind, coll_bytes, ranks));
  }
  // After the last transfer lands, what still waits for it: an all-gather
  // GEMM's tiles wait for their block of rows, and the last block's tiles (a
  // P-th of the GEMM, at least one wave) can only start once it is in; a
  // reduce-scatter GEMM computes its own block last (the ring stagger), so
  // only the last partials' wave remains.
  const double tail =
      kind == CollectiveKind::kAllGather ? std::max(t.wave_ns, t.gemm_ns / double(std::max(ranks, 1))) : t.wave_ns;
  t.total_ns = std::max(t.gemm_ns, t.comm_ns > 0 ? t.comm_ns + tail : 0.0);
  t.hbm_bytes = c.hbm_bytes + 2.0 * double(send_bytes);
  return t;
}

int CommSmsLost(int comm_sms, double contention, int sm_count) {
  const double lost = std::round(double(comm_sms) * contention);
  const double hi = double(std::max(sm_count - 1, 0));
  return int(std::clamp(lost, 0.0, hi));
}

int CommSms(const Topology& topo, int config_comm_sms) {
  if (config_comm_sms > 0) return config_comm_sms;
  return topo.nccl_channels > 0 ? topo.nccl_channels : kDefaultChannels;
}

}  // namespace braid::sim
