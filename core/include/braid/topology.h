// A topology: which GPUs, how many per node, and the links between them.
// Topologies are data files (catalog/topologies/*.toml, read by the catalog
// module); this is the in-memory form every module shares.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid {

enum class LinkKind { kNvSwitch, kNvLink, kPcie, kInfiniBand, kRoce, kEthernet };

std::string_view LinkKindName(LinkKind k);
Result<LinkKind> ParseLinkKind(std::string_view name);

struct Link {
  LinkKind kind = LinkKind::kNvSwitch;
  double bandwidth_gbs = 0;  // GB/s per direction, per GPU
  double latency_us = 0;     // one small message, end to end
  bool peer_to_peer = true;  // PCIe: direct GPU-to-GPU (false: through host memory)
  std::string source;        // where the numbers come from
  // NCCL-like protocol regimes (optional in files; the sim backend uses them).
  // LL: `latency_us` per step at ll_efficiency × bandwidth (small messages).
  // Simple: simple_latency_us per step (0 = latency_us) at simple_efficiency × bandwidth.
  double ll_efficiency = 0.25;
  double simple_efficiency = 0.8;
  double simple_latency_us = 0;
  // NVLS (NVSwitch multimem): 0 = not available; else a GPU's side of the
  // switch moves nvls_efficiency × bandwidth after nvls_latency_us. All-reduce
  // sends and receives the buffer once each way; all-gather receives and
  // reduce-scatter sends the whole buffer (sim_models.cc).
  double nvls_efficiency = 0;
  double nvls_latency_us = 0;
  // The CTAs NCCL runs an NVLS collective on (its nvlsChannels: 16 on Hopper,
  // 24 on one Blackwell NVLink domain in NCCL 2.28); 0 = the topology's
  // nccl_channels, as before the field existed.
  int nvls_channels = 0;
  // [inter] only: NICs (rails) per node, each `bandwidth_gbs` per direction;
  // HGX/DGX nodes have one per GPU. NCCL runs a ring per rail, so a ring
  // across nodes moves up to nics_per_node × one NIC's rate (sim_models.cc).
  // It must divide gpus_per_node: every NIC then serves as many GPUs as the
  // next, which is what "a ring per rail at one NIC's rate" assumes.
  int nics_per_node = 1;
};

// The sim's expected relative error of a collective or transfer on this
// topology's links, by size (docs/simulator.md, "Error bands"): what a
// user can read beside each simulated figure. A topology file gives either
// in [error_band], from published or measured rows; one it does not give
// keeps the wide figure below and is marked assumed.
struct CollectiveErrorBand {
  // Messages below it are latency-bound (NCCL's LL protocol regime), where
  // the few public rows there are miss by more.
  static constexpr int64_t kSmallBytes = int64_t(4) << 20;
  double collective = 0.25;       // at least kSmallBytes
  double collective_small = 0.5;  // below kSmallBytes
  bool collective_assumed = true, collective_small_assumed = true;
  std::string source = "assumed: the topology file has no [error_band]";
  double For(int64_t bytes) const { return bytes < kSmallBytes ? collective_small : collective; }
  bool AssumedFor(int64_t bytes) const { return bytes < kSmallBytes ? collective_small_assumed : collective_assumed; }
};

struct Topology {
  std::string name;
  std::string gpu;
  int gpus_per_node = 1;  // a host: one OS, one MPI node, its own NICs
  int nodes = 1;
  // NVLink domain: how many GPUs share one NVLink fabric, in whole nodes.
  // 0 (the default) means the node: HGX/DGX NVLink stops at the board. A
  // GB200 NVL72 rack is 18 compute trays (nodes) of 4 GPUs on one set of
  // NVSwitch trays: nvlink_domain_gpus = 72, so a TP group spanning trays
  // stays on `intra`. `inter` joins domains. Why not one 72-GPU "node":
  // hosts, MPI placement and NICs are per tray (docs/mpi.md).
  // @pre 0, or a multiple of gpus_per_node that divides total_gpus().
  int nvlink_domain_gpus = 0;
  Link intra;  // within an NVLink domain (a node unless nvlink_domain_gpus says more)
  Link inter;  // between NVLink domains (unused when there is one)
  // NVLink-bridge pairs: GPUs 2k and 2k+1 of a node are joined by `pair`;
  // every other pair of GPUs in the node talks over `intra` (e.g. PCIe).
  bool has_pair = false;
  Link pair;
  int nccl_channels = 0;  // default comm SMs (channels) of a collective; 0 = backend default
  CollectiveErrorBand error_band;

  int total_gpus() const { return gpus_per_node * nodes; }
  int domain_gpus() const { return nvlink_domain_gpus > 0 ? nvlink_domain_gpus : gpus_per_node; }
  int domains() const { return total_gpus() / std::max(domain_gpus(), 1); }
  // A TP degree P uses the first P GPUs; it must fit.
  Status CheckFits(int tp) const;
};

}  // namespace braid
