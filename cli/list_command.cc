#include "list_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "braid/gpu_files.h"
#include "braid/model_files.h"
#include "braid/topology_files.h"
#include "cli_exit.h"
#include "run_report.h"

namespace braid::cli {

void AddListOptions(CLI::App* sub, ListArgs* a) {
  // Required, with its own message: CLI11's would say "what is required".
  sub->add_option("what", a->what, "models | topologies | gpus");
}

namespace {

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string LinkText(const Link& l) {
  return std::string(LinkKindName(l.kind)) + " " + Format("%g", l.bandwidth_gbs) + " GB/s, " +
         Format("%g", l.latency_us) + " us";
}

Result<std::string> GpuLine(const std::string& name) {
  BRAID_ASSIGN_OR_RETURN(auto g, LoadGpu(name));
  return std::to_string(g.sm_count) + " SMs, " + Format("%g", g.tflops_bf16) + " TFLOPS bf16, HBM " +
         Format("%g", g.hbm_gbs) + " GB/s, " + std::to_string(g.copy_engines) + " copy engines";
}

Result<std::string> TopologyLine(const std::string& name) {
  BRAID_ASSIGN_OR_RETURN(auto t, LoadTopology(name));
  BRAID_ASSIGN_OR_RETURN(auto g, LoadGpu(t.gpu));
  std::string line = std::to_string(t.total_gpus()) + " x " + t.gpu + " (" + std::to_string(g.sm_count) + " SMs), " +
                     std::to_string(t.nodes) + (t.nodes == 1 ? " node" : " nodes");
  if (t.domain_gpus() > t.gpus_per_node) line += ", NVLink domains of " + std::to_string(t.domain_gpus()) + " GPUs";
  line += "; intra-node " + LinkText(t.intra);
  if (t.has_pair) line += "; NVLink pairs " + LinkText(t.pair);
  if (t.domains() > 1) line += "; inter-node " + LinkText(t.inter);
  return line;
}

Result<std::string> ModelLine(const std::string& name) {
  BRAID_ASSIGN_OR_RETURN(auto m, LoadModel(name));
  return "hidden " + std::to_string(m.hidden) + ", heads " + std::to_string(m.heads) + " (kv " +
         std::to_string(m.kv_heads) + ") x " + std::to_string(m.head_dim) + ", ffn " + std::to_string(m.ffn) +
         (m.gated_mlp ? " (gated)" : "") + ", " + std::to_string(m.layers) + " layers";
}

}  // namespace

int ExecuteList(const ListArgs& a) {
  std::vector<std::string> names;
  Result<std::string> (*line)(const std::string&) = nullptr;
  if (a.what == "models") {
    names = BuiltinModelNames();
    line = ModelLine;
  } else if (a.what == "topologies") {
    names = BuiltinTopologyNames();
    line = TopologyLine;
  } else if (a.what == "gpus") {
    names = BuiltinGpuNames();
    line = GpuLine;
  } else if (a.what.empty()) {
    return ReportError("list", Status::Invalid("say what to list: models, topologies or gpus (braid list gpus)"));
  } else {
    return ReportError("list",
                       Status::Invalid("unknown list '" + OneLine(a.what) + "' (known: models, topologies, gpus)"));
  }
  size_t width = 0;
  for (const std::string& n : names) width = std::max(width, n.size() + 2);
  std::string out;
  for (const std::string& n : names) {
    auto l = line(n);
    if (!l.ok()) return ReportError("list", l.status());
    out += Pad(n, width) + *l + "\n";
  }
  std::cout << out;
  return kExitOk;
}

}  // namespace braid::cli
