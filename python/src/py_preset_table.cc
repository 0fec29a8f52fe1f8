#include "py_preset_table.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>

#include "py_errors.h"
#include "py_paths.h"

namespace py = pybind11;

namespace braid::python {

namespace {

thread_local bool t_last_lookup_released_gil = false;

// The value of one key component (gpu or topology) the caller left out: the
// only one among `places` that agree with what was given. Several: ValueError.
// None: empty (nothing can match).
std::string OnlyValue(const std::vector<std::pair<std::string, std::string>>& places, bool want_gpu,
                      const std::optional<std::string>& gpu, const std::optional<std::string>& topology) {
  std::vector<std::string> values;
  for (const auto& [g, t] : places) {
    if ((gpu && *gpu != g) || (topology && *topology != t)) continue;
    const std::string& v = want_gpu ? g : t;
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  if (values.size() <= 1) return values.empty() ? std::string() : values[0];
  std::string list;
  for (const std::string& v : values) list += (list.empty() ? "" : ", ") + v;
  const char* what = want_gpu ? "gpu" : "topology";
  throw py::value_error(std::string("the table holds presets for several values of ") + what + " (" + list +
                        "): pass " + what + "=");
}

std::string ReprOf(const PyLookupResult& r) {
  char time[32];
  std::snprintf(time, sizeof time, "%.0f", r.preset->time_ns);
  return "<braid.LookupResult " + std::string(PresetMatchName(r.match)) + ": " + r.preset->key.workload.Describe() +
         " -> " + r.preset->config.Describe() + ", time_ns=" + time + ">";
}

}  // namespace

PyPresetTable::PyPresetTable(PresetTable table, std::string origin)
    : table_(std::make_shared<const PresetTable>(std::move(table))), origin_(std::move(origin)) {
  for (const Preset& p : table_->presets()) {
    std::pair<std::string, std::string> place{p.key.gpu, p.key.topology};
    if (std::find(places_.begin(), places_.end(), place) == places_.end()) places_.push_back(std::move(place));
  }
}

PyPresetTable PyPresetTable::Load(const std::string& path) {
  auto load = [&path] {
    py::gil_scoped_release release;  // reading and parsing a file
    return PresetTable::Load(path);
  };
  auto t = load();
  ThrowIfPresetError(t.status());
  return PyPresetTable(std::move(*t), path);
}

PyPresetTable PyPresetTable::Parse(const std::string& text, const std::string& origin) {
  auto t = PresetTable::Parse(text, origin);
  ThrowIfPresetError(t.status());
  return PyPresetTable(std::move(*t), origin);
}

std::optional<PyLookupResult> PyPresetTable::Lookup(const std::string& op, int64_t m, int64_t n, int64_t k, int64_t tp,
                                                    const std::string& dtype, const std::optional<std::string>& gpu,
                                                    const std::optional<std::string>& topology,
                                                    const std::string& pass) const {
  Workload w;
  auto parsed_pass = ParsePass(pass);
  ThrowIfValueError(parsed_pass.status());
  auto parsed_op = ParseOp(op);
  ThrowIfValueError(parsed_op.status());
  w.op = *parsed_op;
  auto parsed_dtype = ParseDType(dtype);
  ThrowIfValueError(parsed_dtype.status());
  w.dtype = *parsed_dtype;
  CheckPositive(m, "m");
  CheckPositive(n, "n");
  CheckPositive(k, "k");
  w.m = m;
  w.n = n;
  w.k = k;
  w.tp = TpArgument(tp);
  const std::string g = gpu ? *gpu : OnlyValue(places_, true, gpu, topology);
  const std::string t = topology ? *topology : OnlyValue(places_, false, gpu, topology);

  LookupResult r;
  {
    // The lookup reads only the immutable table: other Python threads may run.
    py::gil_scoped_release release;
    t_last_lookup_released_gil = PyGILState_Check() == 0;
    r = table_->Lookup(w, g, t, "", *parsed_pass);
  }
  if (r.preset == nullptr) return std::nullopt;
  return PyLookupResult{table_, r.preset, r.match, r.distance};
}

bool LastLookupReleasedGil() { return t_last_lookup_released_gil; }

std::optional<py::dict> PyPresetTable::LookupDp(const std::string& model, int64_t tokens, int64_t tp, int64_t dp,
                                                const std::string& zero, const std::string& dtype,
                                                const std::optional<std::string>& gpu,
                                                const std::optional<std::string>& topology) const {
  auto z = ParseZeroStage(zero);
  ThrowIfValueError(z.status());
  auto d = ParseDType(dtype);
  ThrowIfValueError(d.status());
  CheckPositive(tokens, "tokens");
  CheckPositive(dp, "dp");
  std::vector<std::pair<std::string, std::string>> places;  // of the DP presets (few)
  for (const DpPreset& p : table_->dp_presets()) places.emplace_back(p.key.gpu, p.key.topology);
  const std::string g = gpu ? *gpu : OnlyValue(places, true, gpu, topology);
  const std::string t = topology ? *topology : OnlyValue(places, false, gpu, topology);
  const DpPresetKey key{g, t, model, tokens, TpArgument(tp), int(std::min<int64_t>(dp, 1 << 20)), *z, *d};
  const DpPreset* p = table_->LookupDp(key);
  if (p == nullptr) return std::nullopt;
  py::dict out;
  out["schedule"] = std::string(DpScheduleName(p->schedule));
  out["bucket_params"] = p->bucket_params;
  if (p->schedule == DpSchedule::kDecomposed) {
    out["decomposed_layers"] = p->decomposed_layers;
    out["decomposition"] = std::string(AlgorithmName(p->decomposition));
    out["decomposition_chunks"] = p->decomposition_chunks;
  }
  out["prefetch"] = p->prefetch;
  out["comm_sms"] = p->comm_sms;
  out["step_ns"] = p->step_ns;
  out["speedup_vs_megatron"] = p->speedup_vs_megatron;
  out["backend"] = p->backend;
  return out;
}

py::dict ConfigDict(const OverlapConfig& c) {
  py::dict d;
  d["algorithm"] = std::string(AlgorithmName(c.algorithm));
  d["chunks"] = c.chunks;
  d["splits"] = py::cast(c.splits);
  d["streams"] = c.comm_lanes;
  d["comm_sms"] = c.comm_sms;
  d["comm_engine"] = std::string(CommEngineName(c.comm_engine));
  d["comm_priority"] = c.comm_high_priority ? "high" : "normal";
  // As `presets lookup --json` (ConfigJson): only where the entry sets it.
  if (c.comm_dtype.has_value()) d["comm_dtype"] = std::string(DTypeName(*c.comm_dtype));
  if (c.sm_margin) d["sm_margin"] = true;  // format version 4, where set
  if (c.wgrad_comm_sms > 0) d["wgrad_comm_sms"] = c.wgrad_comm_sms;
  return d;
}

py::dict KeyDict(const PresetKey& k) {
  const Workload& w = k.workload;
  py::dict d;
  d["gpu"] = k.gpu;
  d["topology"] = k.topology;
  d["op"] = std::string(OpName(w.op));
  d["m"] = w.m;
  d["n"] = w.n;
  d["k"] = w.k;
  d["dtype"] = std::string(DTypeName(w.dtype));
  d["tp"] = w.tp;
  if (!k.layer.empty()) d["layer"] = k.layer;
  d["pass"] = std::string(PassName(k.pass));
  return d;
}

void BindPresetTable(py::module_& m) {
  py::class_<PyLookupResult>(m, "LookupResult",
                             "The preset a runtime would use for one GEMM (returned by PresetTable.lookup).")
      .def_property_readonly(
          "match", [](const PyLookupResult& r) { return std::string(PresetMatchName(r.match)); },
          "\"exact\" (the key equals the query) or \"nearest\" (closest shape in ln(M, N, K)).")
      .def_property_readonly(
          "distance", [](const PyLookupResult& r) { return r.distance; },
          "Euclidean distance in (ln M, ln N, ln K) to the entry used; 0.0 for an exact match.")
      .def_property_readonly(
          "config", [](const PyLookupResult& r) { return ConfigDict(r.preset->config); },
          "Every knob of the chosen overlap config: algorithm, chunks, splits, streams, comm_sms (0 = backend "
          "default), comm_engine (\"sm\" | \"ce\"), comm_priority (\"high\" | \"normal\"). A new dict each time.")
      .def_property_readonly(
          "time_ns", [](const PyLookupResult& r) { return r.preset->time_ns; },
          "The entry's measured time in nanoseconds (on its backend's clock; simulated when backend is \"sim\").")
      .def_property_readonly(
          "key", [](const PyLookupResult& r) { return KeyDict(r.preset->key); },
          "The entry's key: gpu, topology, op, m, n, k, dtype, tp, pass and, when set, layer.")
      .def_property_readonly(
          "backend", [](const PyLookupResult& r) { return r.preset->backend; },
          "Where the time was measured: \"sim\", \"cpu\" or \"cuda\".")
      .def_property_readonly(
          "speedup_vs_serial", [](const PyLookupResult& r) { return r.preset->speedup_vs_serial; },
          "The entry's speed-up over running the collective and the GEMM one after the other.")
      .def("__repr__", &ReprOf);

  py::class_<PyPresetTable>(m, "PresetTable",
                            "A loaded preset file (the tuner's winners, one config per workload key). Immutable; "
                            "lookups may run from many threads at once.")
      .def_static(
          "load", [](const py::object& path) { return PyPresetTable::Load(PathArgument(path)); }, py::arg("path"),
          "Loads a preset file (str or os.PathLike). Raises braid.PresetError with the loader's one-line message "
          "(\"file:line:col: ...\") when the file is missing or malformed.")
      .def_static("parse", &PyPresetTable::Parse, py::arg("text"), py::arg("origin") = "<string>",
                  "Parses preset-file text; `origin` names it in error messages. Raises braid.PresetError.")
      .def("lookup", &PyPresetTable::Lookup, py::kw_only(), py::arg("op"), py::arg("m"), py::arg("n"), py::arg("k"),
           py::arg("tp"), py::arg("dtype") = "bf16", py::arg("gpu") = py::none(), py::arg("topology") = py::none(),
           py::arg("pass_") = "fprop",
           "The preset for one TP GEMM: the entry with an equal key, else the nearest shape of the same gpu, "
           "topology, tp and op (same dtype preferred). Returns a LookupResult, or None when nothing matches.\n\n"
           "op: \"ag_gemm\" | \"gemm_rs\" | \"gemm_ar\"; m, n, k: full (unsharded) GEMM sizes; tp: TP degree; "
           "dtype: \"bf16\" | \"fp16\" | \"fp32\"; pass_: \"fprop\" | \"dgrad\" | \"wgrad\", which GEMM of the "
           "linear layer (only presets of that pass answer). gpu / topology left out: the table's only one (ValueError "
           "when "
           "it holds several). Raises ValueError for an unknown op, dtype or pass or a size below 1. Releases the GIL "
           "while the lookup runs.")
      .def("lookup_dp", &PyPresetTable::LookupDp, py::kw_only(), py::arg("model"), py::arg("tokens"), py::arg("tp"),
           py::arg("dp"), py::arg("zero") = "none", py::arg("dtype") = "bf16", py::arg("gpu") = py::none(),
           py::arg("topology") = py::none(),
           "The data-parallel preset (braid tune --dp) of exactly this key: model name, tokens (seq*batch a DP "
           "rank), tp, dp, zero (\"none\" | \"1\" | \"2\" | \"3\"), dtype. A dict (schedule, bucket_params, prefetch, "
           "comm_sms, step_ns, speedup_vs_megatron, backend; decomposed_layers, decomposition and "
           "decomposition_chunks when decomposed), or None. Raises ValueError for a bad zero, dtype or size.")
      .def("__len__", &PyPresetTable::size, "The number of entries.")
      .def("__repr__", [](const PyPresetTable& t) {
        return "<braid.PresetTable " + Utf8Text(t.origin()) + " with " + std::to_string(t.size()) + " presets>";
      });

  m.def("_lookup_released_gil", &LastLookupReleasedGil,
        "Whether this thread's latest PresetTable.lookup ran without the GIL (for tests).");
}

}  // namespace braid::python
