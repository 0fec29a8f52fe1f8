#include "py_te_ub_cfgs.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/te_export.h"
#include "braid/topology_files.h"
#include "py_errors.h"
#include "py_paths.h"
#include "py_preset_table.h"

namespace py = pybind11;

namespace braid::python {

namespace {

// The TP degree, as `braid presets export-te` resolves --tp: the caller's,
// else the table's only one for (gpu, topology).
int ResolveTp(std::optional<int64_t> tp, const PresetTable& table, const std::string& gpu, const std::string& topology,
              const std::string& source) {
  if (tp) return TpArgument(*tp);
  const std::vector<int> tps = PresetTps(table, gpu, topology);
  if (tps.size() == 1) return tps[0];
  const std::string where = " for gpu " + gpu + ", topology " + topology + " in " + source;
  if (tps.empty()) throw PresetError("no presets" + where);
  std::string list;
  for (int t : tps) list += (list.empty() ? "" : ", ") + std::to_string(t);
  throw py::value_error("presets for several TP degrees (" + list + ")" + where + ": pass tp=");
}

// What export-te says about comm_sms = 0 (the backend default).
TeExportInfo InfoFor(const Topology& topo, const std::string& source) {
  TeExportInfo info;  // provenance from core's version API
  info.source = source;
  if (topo.nccl_channels > 0) {
    info.default_comm_sms = topo.nccl_channels;
    info.default_comm_sms_origin = "topology " + topo.name + " nccl_channels";
  } else {
    info.default_comm_sms = 16;
    info.default_comm_sms_origin = "Braid's default; topology " + topo.name + " sets no nccl_channels";
  }
  return info;
}

py::dict SettingsDict(const TeSettings& t, bool fp8) {
  py::dict d;
  d["method"] = std::string(TeMethodName(t.method));
  d["num_splits"] = t.num_splits;
  d["num_sm"] = t.num_sm;
  d["cga_size"] = t.cga_size;
  d["set_sm_margin"] = t.set_sm_margin;
  d["atomic_gemm"] = t.atomic_gemm;
  d["use_ce"] = t.use_ce;
  d["aggregate"] = t.aggregate;
  if (fp8) d["fp8_buf"] = t.fp8_buf;
  if (t.comm_priority) d["comm_priority"] = *t.comm_priority;
  if (t.gemm_priority) d["gemm_priority"] = *t.gemm_priority;
  return d;
}

// As export-te's --phase: prefill or train, the sequence-parallel phases.
Phase PhaseArgument(const std::string& name) {
  auto phase = ParsePhase(name);
  if (phase.ok() && *phase != Phase::kDecode) return *phase;
  throw py::value_error("phase '" + OneLine(name) +
                        "': te_ub_cfgs takes prefill or train (the sequence-parallel phases TE's userbuffer "
                        "overlap serves)");
}

// (ub_cfgs, notes): notes name, per key, a nearest match, every knob TE
// cannot express or that was approximated ("fc2_fprop: not expressible: ..."),
// and why a key is left out ("qkv_wgrad: omitted: ...").
py::tuple TeUbCfgs(const py::object& source, const std::string& model, int64_t seq, int64_t batch,
                   const std::string& topology, std::optional<int64_t> tp, const std::optional<std::string>& gpu,
                   const std::string& dtype, const std::string& phase, bool nearest) {
  CheckPositive(seq, "seq");
  CheckPositive(batch, "batch");
  auto parsed_dtype = ParseDType(dtype);
  ThrowIfValueError(parsed_dtype.status());
  const Phase parsed_phase = PhaseArgument(phase);

  const PyPresetTable loaded = py::isinstance<PyPresetTable>(source) ? source.cast<const PyPresetTable&>()
                                                                     : PyPresetTable::Load(PathArgument(source));
  const PresetTable& table = loaded.table();
  const std::string& source_name = loaded.origin();

  auto spec = LoadModel(model);
  ThrowIfPresetError(spec.status());
  auto topo = LoadTopology(topology);
  ThrowIfPresetError(topo.status());
  const std::string gpu_name = gpu ? *gpu : topo->gpu;
  const int p = ResolveTp(tp, table, gpu_name, topo->name, source_name);
  ThrowIfValueError(topo->CheckFits(p));
  // TE's userbuffer overlap needs sequence parallelism.
  auto lw = MakeLayerWorkload(*spec, seq, batch, parsed_phase, p, *parsed_dtype, true);
  ThrowIfValueError(lw.status());

  TeExportInfo info = InfoFor(*topo, source_name);
  info.nearest = nearest;
  auto cfgs = BuildTeUbCfgs(table, *lw, gpu_name, topo->name, info);
  ThrowIfPresetError(cfgs.status());

  py::dict ub_cfgs;
  py::list notes;
  for (const TeUbCfg& layer : cfgs->layers) {
    if (!layer.omitted) ub_cfgs[py::str(layer.key)] = SettingsDict(layer.te, layer.fp8);
    // comments[1] says which entry a nearest match used.
    if (layer.match == PresetMatch::kNearest && layer.comments.size() > 1) {
      notes.append(layer.key + ": " + layer.comments[1]);
    }
    for (const std::string& c : layer.te.comments) notes.append(layer.key + ": " + c);
  }
  return py::make_tuple(ub_cfgs, notes);
}

}  // namespace

void BindTeUbCfgs(py::module_& m) {
  m.def("_te_ub_cfgs", &TeUbCfgs, py::arg("presets"), py::kw_only(), py::arg("model"), py::arg("seq"), py::arg("batch"),
        py::arg("topology"), py::arg("tp") = py::none(), py::arg("gpu") = py::none(), py::arg("dtype") = "bf16",
        py::arg("phase") = "prefill", py::arg("nearest") = false, "(ub_cfgs, notes); see braid.te_ub_cfgs.");
}

}  // namespace braid::python
