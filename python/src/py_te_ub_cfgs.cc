#include "py_te_ub_cfgs.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "braid/model_files.h"
#include "braid/te_export.h"
#include "braid/te_export_setup.h"
#include "braid/topology_files.h"
#include "py_errors.h"
#include "py_paths.h"
#include "py_preset_table.h"

namespace py = pybind11;

namespace braid::python {

namespace {

// PrepareTeExport's refusals as Python raises them: no presets for the
// topology is a PresetError, anything else a ValueError, the field `tp`
// named as the keyword that sets it.
void ThrowIfNotPrepared(const Status& s) {
  if (s.ok()) return;
  if (s.code() == StatusCode::kNotFound) ThrowIfPresetError(s);
  std::string message = s.message();
  const size_t at = message.find("pass `tp`");
  if (at != std::string::npos) message.replace(at, std::string_view("pass `tp`").size(), "pass tp=");
  throw py::value_error(Utf8Text(message));
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
  TeExportRequest request{*spec,         *topo,        seq, batch,       parsed_phase,
                          *parsed_dtype, std::nullopt, gpu, source_name, nearest};
  if (tp) request.tp = TpArgument(*tp);
  auto prepared = PrepareTeExport(request, table);
  ThrowIfNotPrepared(prepared.status());
  auto cfgs = BuildTeUbCfgs(table, prepared->block, prepared->gpu, prepared->topology, prepared->info);
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
