// Topology files: every error names file, line and field.
#include "braid/topology_files.h"

#include <tuple>

#include "braid/toml_fields.h"
#include "braid/toml_reader.h"
#include "error_band_table.h"

namespace braid {

namespace {

// `max_nics`: the [inter] link may say how many NICs a node has (up to one
// per GPU); 0 for the links inside a node, where the key is refused.
Result<Link> ReadLink(const TomlFields& root, const char* table, std::string_view origin, int max_nics = 0) {
  BRAID_ASSIGN_OR_RETURN(auto t, root.Table(table));
  const TomlFields f(*t, origin, std::string(table) + ".");
  if (max_nics > 0) {
    BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"kind", "bandwidth_gbs", "latency_us", "peer_to_peer", "source",
                                           "ll_efficiency", "simple_efficiency", "simple_latency_us", "nvls_efficiency",
                                           "nvls_latency_us", "nvls_channels", "nics_per_node"}));
  } else {
    BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"kind", "bandwidth_gbs", "latency_us", "peer_to_peer", "source",
                                           "ll_efficiency", "simple_efficiency", "simple_latency_us", "nvls_efficiency",
                                           "nvls_latency_us", "nvls_channels"}));
  }
  Link link;
  BRAID_ASSIGN_OR_RETURN(auto kind, f.String("kind"));
  auto lk = ParseLinkKind(kind);
  if (!lk.ok())
    return Status::Invalid(f.Where(*t->Find("kind")) + ": " + f.Name("kind") + ": " + lk.status().message());
  link.kind = *lk;
  // Bounded, not only positive: bandwidth_gbs = 1e-300 made simulated times
  // overflow int64 nanoseconds (a makespan of -9.22e18 ns, exit 0). 0.001
  // GB/s is a 8 Mbit/s link; no interconnect is faster than 1e6 GB/s.
  BRAID_ASSIGN_OR_RETURN(auto bw, f.Number("bandwidth_gbs", 0.001, 1e6));
  link.bandwidth_gbs = bw;
  BRAID_ASSIGN_OR_RETURN(auto lat, f.Number("latency_us", 0.001, 1e6));
  link.latency_us = lat;
  BRAID_ASSIGN_OR_RETURN(auto p2p, f.OptionalBool("peer_to_peer", true));
  link.peer_to_peer = p2p;
  BRAID_ASSIGN_OR_RETURN(auto src, f.String("source"));
  link.source = src;
  // Optional protocol figures: absent keeps the defaults of topology.h.
  for (auto [key, dst, lo, hi] : {std::tuple{"ll_efficiency", &link.ll_efficiency, 0.01, 1.0},
                                  {"simple_efficiency", &link.simple_efficiency, 0.01, 1.0},
                                  {"simple_latency_us", &link.simple_latency_us, 0.0, 1e6},
                                  // A zero rate would be no NVLS at all: leave the key out instead.
                                  {"nvls_efficiency", &link.nvls_efficiency, 0.01, 1.0},
                                  {"nvls_latency_us", &link.nvls_latency_us, 0.0, 1e6}}) {
    if (t->Find(key) == nullptr) continue;
    BRAID_ASSIGN_OR_RETURN(auto v, f.Number(key, lo, hi));
    *dst = v;
  }
  // NVLS reduces in the switch (multimem): only an NVSwitch link has one. The
  // sim would ignore the figures elsewhere, so a file that gives them on
  // PCIe or a network link says something about its system that is not so.
  for (const char* key : {"nvls_efficiency", "nvls_latency_us", "nvls_channels"}) {
    if (t->Find(key) == nullptr || link.kind == LinkKind::kNvSwitch) continue;
    return Status::Invalid(f.Where(*t->Find(key)) + ": " + f.Name(key) +
                           ": NVLS (NVSwitch multimem) needs kind = \"nvswitch\"; this link's kind is \"" +
                           std::string(LinkKindName(link.kind)) + "\"");
  }
  if (t->Find("nvls_channels") != nullptr) {
    // NCCL runs at most MAXCHANNELS (64) channels of any algorithm; the
    // count only matters beside an NVLS rate.
    if (t->Find("nvls_efficiency") == nullptr) {
      return Status::Invalid(f.Where(*t->Find("nvls_channels")) + ": " + f.Name("nvls_channels") +
                             ": the NVLS CTAs need an NVLS rate: give nvls_efficiency too");
    }
    BRAID_ASSIGN_OR_RETURN(auto ch, f.Integer("nvls_channels", 1, 64));
    link.nvls_channels = int(ch);
  }
  if (max_nics > 0 && t->Find("nics_per_node") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto nics, f.Integer("nics_per_node", 1, max_nics));
    // Each NIC serves the same number of GPUs (a ring per rail at one NIC's
    // rate, sim_models.cc): 3 NICs for 8 GPUs would leave one NIC carrying
    // more rings than the others, which the model would overstate.
    if (max_nics % nics != 0) {
      return Status::Invalid(f.Where(*t->Find("nics_per_node")) + ": " + f.Name("nics_per_node") + " " +
                             std::to_string(nics) + " must divide gpus_per_node (" + std::to_string(max_nics) +
                             "): every NIC serves as many GPUs as the next");
    }
    link.nics_per_node = int(nics);
  }
  return link;
}

// An NVLink domain is whole nodes (a tray's GPUs share its NVLink ports)
// and the file is whole domains (every TP group of domain size fits one).
Status CheckDomain(const Topology& t, int domain, const std::string& where) {
  const std::string head = where + ": nvlink_domain_gpus " + std::to_string(domain);
  if (domain % t.gpus_per_node != 0) {
    return Status::Invalid(head + " must be whole nodes, a multiple of gpus_per_node (" +
                           std::to_string(t.gpus_per_node) + ")");
  }
  if (domain > t.total_gpus() || t.total_gpus() % domain != 0) {
    return Status::Invalid(head + " must divide the file's " + std::to_string(t.total_gpus()) + " GPUs (nodes " +
                           std::to_string(t.nodes) + " x gpus_per_node " + std::to_string(t.gpus_per_node) + ")");
  }
  return Status::Ok();
}

// [error_band]: either figure, each a relative error in [0, 1], and where
// they come from.
Result<CollectiveErrorBand> ReadCollectiveErrorBand(const TomlFields& root, std::string_view origin) {
  BRAID_ASSIGN_OR_RETURN(auto t, root.Table("error_band"));
  const TomlFields f(*t, origin, "error_band.");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"collective", "collective_small", "source"}));
  CollectiveErrorBand band;
  BRAID_ASSIGN_OR_RETURN(
      band.source, ReadErrorBandFields(*t, f,
                                       {{"collective", &band.collective, &band.collective_assumed},
                                        {"collective_small", &band.collective_small, &band.collective_small_assumed}}));
  return band;
}

}  // namespace

Result<Topology> ParseTopologyToml(std::string_view text, std::string_view origin) {
  BRAID_ASSIGN_OR_RETURN(auto doc, ParseToml(text, origin));
  const TomlFields f(doc, origin, "");
  BRAID_RETURN_IF_ERROR(f.OnlyKnownKeys({"name", "gpu", "gpus_per_node", "nodes", "nvlink_domain_gpus", "intra",
                                         "inter", "pair", "nccl_channels", "error_band"}));
  Topology t;
  BRAID_ASSIGN_OR_RETURN(auto name, f.String("name"));
  t.name = name;
  BRAID_ASSIGN_OR_RETURN(auto gpu, f.String("gpu"));
  t.gpu = gpu;
  BRAID_ASSIGN_OR_RETURN(auto per_node, f.Integer("gpus_per_node", 1, 4096));
  t.gpus_per_node = int(per_node);
  BRAID_ASSIGN_OR_RETURN(auto nodes, f.Integer("nodes", 1, 4096));
  t.nodes = int(nodes);
  if (doc.Find("nccl_channels") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto ch, f.Integer("nccl_channels", 1, 1024));
    t.nccl_channels = int(ch);
  }
  if (doc.Find("nvlink_domain_gpus") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto domain, f.Integer("nvlink_domain_gpus", 1, 4096 * 4096));
    BRAID_RETURN_IF_ERROR(CheckDomain(t, int(domain), f.Where(*doc.Find("nvlink_domain_gpus"))));
    t.nvlink_domain_gpus = int(domain);
  }
  BRAID_ASSIGN_OR_RETURN(auto intra, ReadLink(f, "intra", origin));
  t.intra = intra;
  // [inter] joins NVLink domains: required when there are several, read
  // (and checked) when a one-domain file such as an NVL72 rack gives it.
  if (t.domains() > 1 || doc.Find("inter") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto inter, ReadLink(f, "inter", origin, t.gpus_per_node));
    t.inter = inter;
  }
  if (doc.Find("pair") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto pair, ReadLink(f, "pair", origin));
    if (t.gpus_per_node % 2 != 0) {
      return Status::Invalid(f.Where(*doc.Find("pair")) +
                             ": [pair] joins GPUs 2k and 2k+1: gpus_per_node must be even");
    }
    t.has_pair = true;
    t.pair = pair;
  }
  if (doc.Find("error_band") != nullptr) {
    BRAID_ASSIGN_OR_RETURN(auto band, ReadCollectiveErrorBand(f, origin));
    t.error_band = band;
  }
  return t;
}

}  // namespace braid
