// The extension module braid._pipeline: one run through Braid's run
// pipeline (braid/run_pipeline.h) on the sim backend, the same library call
// `braid run` and the tuner make. braid.run() in __init__.py wraps it and
// turns the returned JSON text (braid/run_json.h, the --json contract) into
// a dict. Built only in the whole tree: it links the store and the
// simulator, which `pip install .` leaves out.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "braid/gpu_files.h"
#include "braid/model_files.h"
#include "braid/run_json.h"
#include "braid/run_pipeline.h"
#include "braid/sim_backend.h"
#include "braid/store.h"
#include "braid/te_ub_cfgs.h"
#include "braid/topology_files.h"
#include "py_errors.h"

#ifndef BRAID_VERSION
#define BRAID_VERSION "unknown"
#endif

namespace braid::python {
namespace {

namespace py = pybind11;

// Bad input is ValueError with the library's one-line message (in field
// words: "comm_sms 200 leaves no SM ..."); a failure while running is
// RuntimeError.
template <typename T>
T Take(Result<T> r) {
  if (r.ok()) return std::move(*r);
  if (r.status().is_user_error()) throw py::value_error(Utf8Text(r.status().message()));
  throw std::runtime_error(Utf8Text(r.status().message()));
}

struct RunArguments {
  std::string op, dtype, algorithm, comm_engine, comm_priority, comm_dtype, topology, phase;
  long long m, n, k, seq, batch;
  int tp, chunks, streams, comm_sms, iters, warmup;
  std::optional<std::string> model, db;
  bool sm_margin = false;
  int wgrad_comm_sms = 0;
  std::optional<std::string> ub_cfgs;  // a TE ub_cfgs YAML: each GEMM of the block as it says
};

RunRequest RequestOf(const RunArguments& a) {
  RunRequest r;
  const DType dtype = Take(ParseDType(a.dtype));
  if (a.model) {
    const ModelSpec model = Take(LoadModel(*a.model));
    const Phase phase = Take(ParsePhase(a.phase));
    r.layer = Take(MakeLayerWorkload(model, a.seq, a.batch, phase, a.tp, dtype));
  } else {
    r.op = Workload{Take(ParseOp(a.op)), a.m, a.n, a.k, dtype, a.tp};
  }
  r.config.algorithm = Take(ParseAlgorithm(a.algorithm));
  r.config.chunks = a.chunks;
  r.config.comm_lanes = a.streams;
  r.config.comm_sms = a.comm_sms;
  r.config.comm_engine = Take(ParseCommEngine(a.comm_engine));
  if (a.comm_priority != "high" && a.comm_priority != "normal") {
    throw py::value_error("`comm_priority` '" + OneLine(a.comm_priority) + "': use high or normal");
  }
  r.config.comm_high_priority = a.comm_priority == "high";
  r.config.comm_dtype = Take(ParseCommDType(a.comm_dtype));
  r.config.sm_margin = a.sm_margin;
  r.config.wgrad_comm_sms = a.wgrad_comm_sms;
  r.topology = a.topology;
  if (a.ub_cfgs) {
    // As `braid run --ub-cfgs`: every GEMM as TE runs the file.
    if (!r.layer) throw py::value_error("`ub_cfgs` configures a block's GEMMs: it needs `model`");
    const Topology topo = Take(LoadTopology(a.topology));
    const GpuSpec gpu = Take(LoadGpu(topo.gpu));
    TeConfiguredBlock block = Take(LoadTeUbCfgsBlock(*a.ub_cfgs, *r.layer, gpu.sm_count));
    r.layer = std::move(block.layer);
    r.config = OverlapConfig{};
    r.notes.insert(r.notes.end(), block.notes.begin(), block.notes.end());
  }
  r.backend = "sim";
  r.options.iters = a.iters;
  r.options.warmup = a.warmup;
  return r;
}

std::string Run(const RunArguments& a) {
  const RunRequest request = RequestOf(a);
  PreparedRun prepared = Take(PrepareRun(request));
  const GpuSpec gpu = Take(LoadGpu(prepared.topology.gpu));
  // Ctrl-C (or any signal whose handler raises) is seen between iterations,
  // not once the run is over: the handler's exception is then raised here
  // and nothing is stored.
  bool interrupted = false;
  prepared.options.between_iterations = [&interrupted]() -> Status {
    py::gil_scoped_acquire held;
    if (PyErr_CheckSignals() == 0) return Status::Ok();
    interrupted = true;  // the handler's exception is pending
    return Status::Internal("interrupted");
  };
  Result<RecordedRun> ran = [&] {
    py::gil_scoped_release unlocked;  // the simulation touches no Python object
    SimBackend sim(gpu, prepared.topology);
    return ExecuteRun(prepared, sim);
  }();
  if (interrupted || PyErr_CheckSignals() != 0) throw py::error_already_set();
  RecordedRun run = Take(std::move(ran));
  // As `braid run` does: the store is opened once there is a run to keep, so
  // a refused or failed run leaves no file behind.
  if (a.db) {
    std::unique_ptr<Store> store = Take(Store::Open(*a.db));
    Take(StoreRun(*store, prepared, run));
  }
  return RunJson(run.record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace
}  // namespace braid::python

PYBIND11_MODULE(_pipeline, m) {
  namespace py = pybind11;
  using braid::python::RunArguments;
  m.doc() = "One run through Braid's run pipeline on the sim backend (C++ extension; see braid.run).";
  m.attr("__version__") = BRAID_VERSION;
  m.def(
      "_run",
      [](std::string op, long long m_, long long n, long long k, int tp, std::string dtype,
         std::optional<std::string> model, long long seq, long long batch, std::string phase, std::string algorithm,
         int chunks, int streams, int comm_sms, std::string comm_engine, std::string comm_priority,
         std::string comm_dtype, std::string topology, int iters, int warmup, std::optional<std::string> db,
         bool sm_margin, int wgrad_comm_sms, std::optional<std::string> ub_cfgs) {
        RunArguments a{std::move(op),
                       std::move(dtype),
                       std::move(algorithm),
                       std::move(comm_engine),
                       std::move(comm_priority),
                       std::move(comm_dtype),
                       std::move(topology),
                       std::move(phase),
                       m_,
                       n,
                       k,
                       seq,
                       batch,
                       tp,
                       chunks,
                       streams,
                       comm_sms,
                       iters,
                       warmup,
                       std::move(model),
                       std::move(db),
                       sm_margin,
                       wgrad_comm_sms,
                       std::move(ub_cfgs)};
        return braid::python::Run(a);
      },
      py::kw_only(), py::arg("op"), py::arg("m"), py::arg("n"), py::arg("k"), py::arg("tp"), py::arg("dtype"),
      py::arg("model"), py::arg("seq"), py::arg("batch"), py::arg("phase"), py::arg("algorithm"), py::arg("chunks"),
      py::arg("streams"), py::arg("comm_sms"), py::arg("comm_engine"), py::arg("comm_priority"), py::arg("comm_dtype"),
      py::arg("topology"), py::arg("iters"), py::arg("warmup"), py::arg("db"), py::arg("sm_margin") = false,
      py::arg("wgrad_comm_sms") = 0, py::arg("ub_cfgs") = py::none());
}
