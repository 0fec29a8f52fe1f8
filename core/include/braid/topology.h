// A topology: which GPUs, how many per node, and the links between them.
// Topologies are data files (catalog/topologies/*.toml, read by the catalog
// module); this is the in-memory form every module shares.
#pragma once

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
  // NVLS (NVSwitch SHARP) all_reduce: 0 = not available; else algbw =
  // nvls_efficiency × bandwidth after nvls_latency_us.
  double nvls_efficiency = 0;
  double nvls_latency_us = 0;
  // [inter] only: NICs (rails) per node, each `bandwidth_gbs` per direction;
  // HGX/DGX nodes have one per GPU. NCCL runs a ring per rail, so a ring
  // across nodes moves up to nics_per_node × one NIC's rate (sim_models.cc).
  int nics_per_node = 1;
};

struct Topology {
  std::string name;
  std::string gpu;
  int gpus_per_node = 1;
  int nodes = 1;
  Link intra;  // within a node
  Link inter;  // between nodes (unused when nodes == 1)
  // NVLink-bridge pairs: GPUs 2k and 2k+1 of a node are joined by `pair`;
  // every other pair of GPUs in the node talks over `intra` (e.g. PCIe).
  bool has_pair = false;
  Link pair;
  int nccl_channels = 0;  // default comm SMs (channels) of a collective; 0 = backend default

  int total_gpus() const { return gpus_per_node * nodes; }
  // A TP degree P uses the first P GPUs; it must fit.
  Status CheckFits(int tp) const;
};

}  // namespace braid
