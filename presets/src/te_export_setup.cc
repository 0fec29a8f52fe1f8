#include "braid/te_export_setup.h"

namespace braid {

namespace {

Result<int> ResolveTp(const TeExportRequest& r, const PresetTable& table, const std::string& gpu) {
  if (r.tp) return *r.tp;
  const std::vector<int> tps = PresetTps(table, gpu, r.topology.name);
  if (tps.size() == 1) return tps[0];
  const std::string where = " for gpu " + gpu + ", topology " + r.topology.name + " in " + r.source;
  if (tps.empty()) return Status::NotFound("no presets" + where);
  std::string list;
  for (int tp : tps) list += (list.empty() ? "" : ", ") + std::to_string(tp);
  return Status::Invalid("presets for several TP degrees (" + list + ")" + where + ": pass `tp`");
}

// What comm_sms = 0 (the backend default) resolves to, and where that came from.
TeExportInfo InfoFor(const Topology& topo, const std::string& source, bool nearest) {
  TeExportInfo info;  // provenance from core's version API
  info.source = source;
  if (topo.nccl_channels > 0) {
    info.default_comm_sms = topo.nccl_channels;
    info.default_comm_sms_origin = "topology " + topo.name + " nccl_channels";
  } else {
    info.default_comm_sms = 16;
    info.default_comm_sms_origin = "Braid's default; topology " + topo.name + " sets no nccl_channels";
  }
  info.nearest = nearest;
  return info;
}

}  // namespace

Result<PreparedTeExport> PrepareTeExport(const TeExportRequest& r, const PresetTable& table) {
  PreparedTeExport p;
  p.gpu = r.gpu.value_or(r.topology.gpu);
  p.topology = r.topology.name;
  BRAID_ASSIGN_OR_RETURN(const int tp, ResolveTp(r, table, p.gpu));
  BRAID_RETURN_IF_ERROR(r.topology.CheckFits(tp));
  // TE's userbuffer overlap needs sequence parallelism.
  BRAID_ASSIGN_OR_RETURN(p.block, MakeLayerWorkload(r.model, r.seq, r.batch, r.phase, tp, r.dtype, true));
  p.info = InfoFor(r.topology, r.source, r.nearest);
  return p;
}

}  // namespace braid
