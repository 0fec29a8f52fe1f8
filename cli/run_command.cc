#include "run_command.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <new>
#include <optional>

#include "backend_choice.h"
#include "braid/backend_kind.h"
#include "braid/cpu_process_backend.h"
#include "braid/data_parallel.h"
#include "braid/gpu_files.h"
#include "braid/launcher.h"
#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "braid/run_pipeline.h"
#include "braid/te_ub_cfgs.h"
#include "braid/topology_files.h"
#if defined(BRAID_HAVE_MPI)
#include "braid/mpi_transport.h"
#endif
#include "cli_exit.h"
#include "created_store_guard.h"
#include "field_flags.h"
#include "front_end.h"
#include "mpi_job.h"
#include "run_report.h"
#include "store_access.h"
#include "train_step_report.h"
#include "workload_flags.h"

namespace braid::cli {

void AddRunOptions(CLI::App* sub, RunArgs* a) {
  sub->add_option("--backend", a->backend, "sim | cpu | cuda")->capture_default_str();
  AddWorkloadOptions(sub, &a->workload,
                     "a layer workload instead of --op/--m/--n/--k: built-in model name or .toml file");
  sub->add_option(
      "--algo", a->algo,
      "serial | chunked | ring | bidir_ring | direct | iso (layer workloads) | fused | bulk (--phase train) | "
      "a2a | a2a_direct (Ulysses all-to-alls, ag_gemm and gemm_rs); required unless --ub-cfgs");
  sub->add_option("--ub-cfgs", a->ub_cfgs,
                  "a TransformerEngine ub_cfgs YAML (Megatron-LM --tp-comm-overlap-cfg): run each GEMM of the "
                  "--model block as TE would (keys left out take TE's defaults)");
  sub->add_option("--chunks", a->chunks, "chunks (chunked) or sub-chunks per ring step")->capture_default_str();
  sub->add_option("--splits", a->splits, "uneven chunk weights for chunked, e.g. 1,2,1");
  sub->add_option("--streams", a->streams, "comm lanes (streams)")->capture_default_str();
  sub->add_option(
      "--comm-sms", a->comm_sms,
      "SMs / channels for comm; fused: SMs that move tiles (0 = backend default: the topology's NCCL channels)");
  sub->add_option("--comm-engine", a->comm_engine, "sm | ce (copy engine)")->capture_default_str();
  sub->add_option("--comm-priority", a->comm_priority, "high | normal: comm streams above the GEMM's, or equal")
      ->capture_default_str();
  sub->add_flag("--sm-margin", a->sm_margin,
                "run the GEMM on the SMs the comm leaves (TE's set_sm_margin: SMs less --comm-sms, or the "
                "backend's default count)");
  sub->add_option("--wgrad-comm-sms", a->wgrad_comm_sms,
                  "bulk: SMs of the reduce-scatter beside the wgrad GEMM (TE's <layer>_wgrad.num_sm; "
                  "--comm-sms is the all-gather's beside the dgrad GEMM; 0 = --comm-sms)");
  AddCommDTypeOption(sub, &a->comm_dtype);
  sub->add_option("--fp8-scale-a", a->fp8_scale_a,
                  "FP8: a fixed scale for every GEMM's A (delayed scaling; default: each tensor's amax)");
  sub->add_option("--fp8-scale-b", a->fp8_scale_b, "FP8: a fixed scale for every GEMM's B, as --fp8-scale-a");
  sub->add_option("--topology", a->topology, "built-in name or .toml file")->capture_default_str();
  sub->add_option("--iters", a->iters, "timed iterations")->capture_default_str();
  sub->add_option("--warmup", a->warmup, "warm-up iterations")->capture_default_str();
  sub->add_flag("--verify", a->verify, "check every rank's output against a plain reference");
  sub->add_flag("--json", a->json, "print one JSON object");
  sub->add_option("--db", a->db, "SQLite store to record the run in")->capture_default_str();
  sub->add_flag("--no-db", a->no_db, "do not record the run");
  sub->add_option("--link-gbps", a->link_gbps, "cpu: pace transfers at this Gbit/s per rank pair");
  sub->add_option("--link-latency-us", a->link_latency_us, "cpu: added latency per message");
  // An unsigned option would read "-1" as 2^64-1: refuse any sign first.
  sub->add_option("--seed", a->seed, "input data seed (0 or more)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& v) { return v.find('-') == std::string::npos ? std::string() : "must be 0 or more"; },
          "UINT", "non-negative"));
  AddCudaOptions(sub, &a->cuda);
  AddDpOptions(sub, &a->dp);
  a->timeout_option = sub->get_option("--timeout");
  a->app = sub;
}

namespace {

Result<OverlapConfig> ConfigFromArgs(const RunArgs& a) {
  OverlapConfig c;
  if (!a.ub_cfgs.empty()) {
    // The file sets every GEMM's config; a run-wide knob would be ignored.
    if (!a.algo.empty()) return Status::Invalid("--algo and --ub-cfgs: the file sets every GEMM's method; give one");
    return c;
  }
  if (a.algo.empty()) return Status::Invalid("--algo is required (or --ub-cfgs FILE with --model)");
  BRAID_ASSIGN_OR_RETURN(auto algo, ParseAlgorithm(a.algo));
  c.algorithm = algo;
  c.chunks = a.chunks;
  if (!a.splits.empty()) {
    BRAID_ASSIGN_OR_RETURN(auto s, ParseSplits(a.splits));
    c.splits = s;
  }
  c.comm_lanes = a.streams;
  c.comm_sms = a.comm_sms;
  BRAID_ASSIGN_OR_RETURN(auto eng, ParseCommEngine(a.comm_engine));
  c.comm_engine = eng;
  if (a.comm_priority != "high" && a.comm_priority != "normal") {
    return Status::Invalid("--comm-priority '" + OneLine(a.comm_priority) + "': use high or normal");
  }
  c.comm_high_priority = a.comm_priority == "high";
  BRAID_ASSIGN_OR_RETURN(auto comm, ParseCommDType(a.comm_dtype));
  c.comm_dtype = comm;
  c.sm_margin = a.sm_margin;
  c.wgrad_comm_sms = a.wgrad_comm_sms;
  return c;
}

// The run-wide knobs a ub_cfgs file leaves no room for.
Status CheckUbCfgsAlone(const RunArgs& a, const CLI::App& sub) {
  for (const char* flag : {"--chunks", "--splits", "--streams", "--comm-sms", "--comm-engine", "--comm-priority",
                           "--sm-margin", "--wgrad-comm-sms"}) {
    if (sub.count(flag) > 0) {
      return Status::Invalid(std::string(flag) + " and --ub-cfgs: the file sets every GEMM's knobs; give one");
    }
  }
  if (a.workload.model.empty()) return Status::Invalid("--ub-cfgs configures a block's GEMMs: it needs --model");
  return Status::Ok();
}

// Each GEMM of the layer configured as the ub_cfgs file says, and the
// notes of what the file's keys did.
Status ApplyUbCfgs(const RunArgs& a, RunRequest& r) {
  BRAID_ASSIGN_OR_RETURN(auto topo, LoadTopology(a.topology));
  BRAID_ASSIGN_OR_RETURN(auto gpu, LoadGpu(topo.gpu));
  BRAID_ASSIGN_OR_RETURN(auto block, LoadTeUbCfgsBlock(a.ub_cfgs, *r.layer, gpu.sm_count));
  r.layer = std::move(block.layer);
  r.notes.insert(r.notes.end(), block.notes.begin(), block.notes.end());
  return Status::Ok();
}

// --dp-op: one DP op of the block (braid/data_parallel.h) becomes the run's
// workload, its ranks the DP group of the grid.
Status SelectDpOp(const RunArgs& a, RunRequest& r) {
  if (!r.layer || r.layer->phase != Phase::kTrain) {
    return Status::Invalid("--dp-op names a DP op of a training block: it needs --model and --phase train");
  }
  if (!a.ub_cfgs.empty()) return Status::Invalid("--dp-op and --ub-cfgs: the file configures TP GEMMs; give one");
  BRAID_ASSIGN_OR_RETURN(DpSetup setup, DpSetupFromArgs(a.dp));
  BRAID_ASSIGN_OR_RETURN(std::vector<DpOp> ops, MakeDpOps(*r.layer, setup.dp, setup.zero));
  std::string known;
  for (const DpOp& op : ops) {
    if (op.name == a.dp.op) {
      r.notes.push_back(op.name + " of " + r.layer->Describe() + ": " + std::string(DpOpKindName(op.kind)) + " of a " +
                        std::to_string(op.weight_rows) + " x " + std::to_string(op.weight_cols) +
                        " weight shard over the DP group of " + std::to_string(setup.dp) + " (tp " +
                        std::to_string(r.layer->tp) + " x dp " + std::to_string(setup.dp) + " grid)");
      r.op = op.gemm;
      r.dp_group_tp = r.layer->tp;
      r.layer.reset();
      return Status::Ok();
    }
    known += (known.empty() ? "" : ", ") + op.name;
  }
  return Status::Invalid("--dp-op '" + OneLine(a.dp.op) + "' is not a DP op of this block with --dp " +
                         std::to_string(setup.dp) + " --zero " + std::string(ZeroStageName(setup.zero)) +
                         " (known: " + (known.empty() ? "none" : known) + ")");
}

// The library's request for what the flags ask.
Result<RunRequest> RequestFromArgs(const RunArgs& a) {
  BRAID_RETURN_IF_ERROR(CheckWorkloadForm(a.workload));
  RunRequest r;
  if (!a.workload.model.empty()) {
    BRAID_ASSIGN_OR_RETURN(auto lw, LayerFromArgs(a.workload));
    r.layer = std::move(lw);
  } else {
    BRAID_ASSIGN_OR_RETURN(auto w, WorkloadFromFlags(a.workload.op, a.workload.m, a.workload.n, a.workload.k,
                                                     a.workload.tp, a.workload.dtype));
    r.op = w;
  }
  BRAID_ASSIGN_OR_RETURN(auto c, ConfigFromArgs(a));
  r.config = std::move(c);
  if (!a.ub_cfgs.empty()) BRAID_RETURN_IF_ERROR(ApplyUbCfgs(a, r));
  if (!a.dp.op.empty()) BRAID_RETURN_IF_ERROR(SelectDpOp(a, r));
  r.topology = a.topology;
  r.backend = a.backend;
  r.options.iters = a.iters;
  r.options.warmup = a.warmup;
  r.options.verify = a.verify;
  r.options.seed = a.seed;
  r.options.fp8_scale_a = a.fp8_scale_a;
  r.options.fp8_scale_b = a.fp8_scale_b;
  const DType dtype = r.layer ? r.layer->dtype : r.op.dtype;
  if ((a.fp8_scale_a || a.fp8_scale_b) && !IsFp8(dtype)) {
    return Status::Invalid(std::string(a.fp8_scale_a ? "--fp8-scale-a" : "--fp8-scale-b") +
                           " applies to FP8 dtypes (fp8_e4m3, fp8_e5m2), not " + std::string(DTypeName(dtype)));
  }
  return r;
}

Status CheckRunOptions(const RunArgs& a, bool writes_store) {
  if (a.iters < 1) return Status::Invalid("--iters must be at least 1");
  if (a.warmup < 0) return Status::Invalid("--warmup must not be negative");
  if (a.chunks < 1) return Status::Invalid("--chunks must be at least 1 (got " + std::to_string(a.chunks) + ")");
  if (a.comm_sms < 0)
    return Status::Invalid("--comm-sms must not be negative (got " + std::to_string(a.comm_sms) + ")");
  if (a.wgrad_comm_sms < 0) {
    return Status::Invalid("--wgrad-comm-sms must not be negative (got " + std::to_string(a.wgrad_comm_sms) + ")");
  }
  if (!a.ub_cfgs.empty() && a.app != nullptr) BRAID_RETURN_IF_ERROR(CheckUbCfgsAlone(a, *a.app));
  for (auto [v, flag] : {std::pair{a.link_gbps, "--link-gbps"}, {a.link_latency_us, "--link-latency-us"}}) {
    if (!std::isfinite(v) || v < 0) return Status::Invalid(std::string(flag) + " must be a finite number, 0 or more");
  }
  if (a.link_latency_us > 0 && a.link_gbps == 0) {
    return Status::Invalid("--link-latency-us needs --link-gbps");
  }
  // Knobs the backend would ignore while the output claims them.
  if (a.link_gbps > 0 && BackendKindNamed(a.backend) != BackendKind::kCpu) {
    return Status::Invalid("--link-gbps applies to the cpu backend only (the " + a.backend +
                           " backend takes its links from --topology)");
  }
  if (!(a.cuda.timeout_s > 0) || !std::isfinite(a.cuda.timeout_s)) {
    return Status::Invalid("--timeout must be a positive number of seconds");
  }
  if (!a.no_db && writes_store) {
    if (a.db.empty()) return Status::Invalid("--db needs a file name (or use --no-db)");
    return CheckStoreWritable(a.db);
  }
  return Status::Ok();
}

// --dp without --dp-op: the whole training step of the block's model on
// the TP × DP grid, on the sim after the block's run (nullopt: not asked).
Result<std::optional<TrainStepRequest>> TrainStepFromArgs(const RunArgs& a, const RunRequest& r) {
  if (!DpRequested(a.dp) || !a.dp.op.empty()) return std::optional<TrainStepRequest>();
  if (!r.layer || r.layer->phase != Phase::kTrain) {
    return Status::Invalid("--dp gives a training step: it needs --model and --phase train");
  }
  if (BackendKindNamed(a.backend) != BackendKind::kSim) {
    return Status::Invalid("--dp gives the whole step on the sim backend; on " + a.backend +
                           ", run each DP op alone with --dp-op NAME");
  }
  if (a.cuda.loopback) {
    return Status::Invalid(
        "--dp and --loopback: a loopback run puts every rank on one GPU, so it has no DP group "
        "(--dp-op runs one DP op in loopback)");
  }
  TrainStepRequest step;
  step.block = *r.layer;
  step.config = r.config;
  step.topology = r.topology;
  BRAID_ASSIGN_OR_RETURN(step.dp, DpSetupFromArgs(a.dp));
  step.layers = a.dp.layers;
  BRAID_RETURN_IF_ERROR(CheckTrainStep(step));
  return std::optional<TrainStepRequest>(std::move(step));
}

struct PreparedFromArgs {
  PreparedRun run;
  std::optional<TrainStepRequest> step;
};

// Flag checks, then the library's (braid/run_pipeline.h, braid/train_step.h).
Result<PreparedFromArgs> PrepareFromArgs(const RunArgs& a, bool writes_store) {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(a, writes_store));
  BRAID_ASSIGN_OR_RETURN(auto request, RequestFromArgs(a));
  PreparedFromArgs out;
  BRAID_ASSIGN_OR_RETURN(out.step, TrainStepFromArgs(a, request));
  BRAID_ASSIGN_OR_RETURN(out.run, PrepareRun(request));
  return out;
}

Result<PreparedRun> PrepareRunFromArgs(const RunArgs& a, bool writes_store) {
  BRAID_ASSIGN_OR_RETURN(auto prepared, PrepareFromArgs(a, writes_store));
  if (prepared.step) return Status::Invalid("--dp gives a training step in one process: run it without mpirun");
  return std::move(prepared.run);
}

void PrintRun(const RunArgs& a, const RecordedRun& run, const TrainStepRequest* step_request = nullptr,
              const TrainStepFigures* step = nullptr) {
  if (a.json) {
    nlohmann::json j = RunJson(run.record);
    if (step != nullptr) j["train_step"] = TrainStepJson(*step_request, *step);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << RunTable(run.record);
    if (step != nullptr) std::cout << TrainStepTable(*step_request, *step);
  }
  std::cout.flush();
}

#if defined(BRAID_HAVE_MPI)
// The MPI leader's ending; a braid without MPI (the GPU bundle) has no caller.
int StoreAndPrint(const RunArgs& a, const PreparedRun& p, RecordedRun& run) {
  if (!a.no_db) {
    std::error_code ec;
    // A store that was not there stays only with its run.
    CreatedStoreGuard guard(a.db, !std::filesystem::exists(a.db, ec));
    {
      auto store = OpenStoreForWrite(a.db);
      if (!store.ok()) return ReportError("run", store.status());
      if (auto id = StoreRun(**store, p, run); !id.ok()) return ReportError("run", id.status());
    }
    guard.Release();  // committed
  }
  PrintRun(a, run);
  return kExitOk;
}
#endif

// In one process the events are streamed: each iteration goes into the
// store as the backend finishes it, so that a run of millions of events is
// never held whole (the store is opened, and checked, before the run).
int ExecuteRunInProcess(const RunArgs& a) {
  auto both = PrepareFromArgs(a, true);
  if (!both.ok()) return ReportError("run", both.status());
  PreparedRun* prepared = &both->run;
  if (Status s = CheckTimeoutApplies(a); !s.ok()) return ReportError("run", s);
  const CpuBackendOptions cpu_options = CpuOptionsOf(a);
  // A DP op runs on its DP group's links: the sim takes the prepared topology.
  auto backend = [&]() -> Result<std::unique_ptr<Backend>> {
    if (a.dp.op.empty() || BackendKindNamed(a.backend) != BackendKind::kSim) {
      return MakeBackend(a.backend, a.topology, cpu_options, a.cuda);
    }
    BRAID_ASSIGN_OR_RETURN(GpuSpec gpu, LoadGpu(prepared->topology.gpu));
    return MakeBackend(a.backend, SimHardware{std::move(gpu), prepared->topology}, cpu_options, a.cuda);
  }();
  if (!backend.ok()) return ReportError("run", backend.status());
  std::error_code ec;
  const bool store_existed = !a.no_db && std::filesystem::exists(a.db, ec);
  CreatedStoreGuard guard(a.db, !a.no_db && !store_existed);  // a run killed part-way leaves no new store
  Result<RecordedRun> run = Status::Internal("not run");
  {
    std::unique_ptr<Store> store;
    if (!a.no_db) {
      auto opened = OpenStoreForWrite(a.db);
      if (!opened.ok()) return ReportError("run", opened.status());
      store = std::move(*opened);
    }
    try {
      run = ExecuteRunStreamed(*prepared, **backend, store.get());
    } catch (const std::bad_alloc&) {
      run = Status::Internal("out of memory while running and storing the run (nothing was stored)");
    }
  }  // the store is closed before the guard removes a failed run's new file
  if (!run.ok()) return ReportError("run", run.status());
  guard.Release();  // committed
  std::optional<TrainStepFigures> step;
  if (both->step) {
    auto figures = SimulateTrainStep(*both->step, &run->record);
    if (!figures.ok()) return ReportError("run", figures.status());
    step = std::move(*figures);
  }
  PrintRun(a, *run, both->step ? &*both->step : nullptr, step ? &*step : nullptr);
  if (Status v = VerifyVerdict(run->output); !v.ok()) return ReportError("run", v);
  return kExitOk;
}

int ExecuteRunUnderMpi(const RunArgs& a) {
  // What only rank 0 does with them (print, store) is left out of the hash.
  auto started = StartMpiJob(a, ArgumentsHash(*a.app, {"--json", "--db", "--no-db"}));
  if (!started.ok()) return ReportError("run", started.status());
  Launcher& world = *started->world;
  const bool root = world.is_root();
  // Bad input: found on every rank alike, printed once, exit 2 everywhere.
  auto fail = [root](const Status& s) {
    if (root) return ReportError("run", s);
    return s.is_user_error() ? kExitUsage : kExitFailure;
  };
  Status checked = started->checked;
  // A DP op's ranks are its DP group.
  const int ranks = a.dp.op.empty() ? a.workload.tp : a.dp.dp;
  const std::string ranks_flag = a.dp.op.empty() ? "--tp" : "--dp";
  if (checked.ok()) checked = CheckJobShape(world, a.backend, ranks, /*cuda_allowed=*/true, ranks_flag);
  Result<PreparedRun> prepared = Status::Internal("not prepared");
  if (checked.ok()) {
    prepared = PrepareRunFromArgs(a, root);
    checked = prepared.status();
  }
  checked = AgreeOnStatus(world, checked);
  if (!checked.ok()) return fail(checked);
  if (world.world_size() == 1) return ExecuteRunInProcess(a);

#if defined(BRAID_HAVE_MPI)
  const CpuBackendOptions cpu{a.link_gbps, a.link_latency_us};
  const NodeLinks nodes = NodeLinksOf(prepared->topology);  // how ranks map to the topology's nodes
  std::unique_ptr<Backend> made;
  if (BackendKindNamed(a.backend) == BackendKind::kCuda) {
    // One process per GPU: every rank gets the same verdict (no GPU: exit 1).
    auto cuda = MakeCudaProcessBackend(a.topology, a.cuda, &world);
    if (!cuda.ok()) return fail(cuda.status());
    made = std::move(*cuda);
  } else {
    made = std::make_unique<CpuProcessBackend>(&world, cpu, MpiTransportFactory(MpiTimeout(a), nodes));
  }
  Backend& backend = *made;
  // A failure while running leaves the peers waiting: end the job.
  auto abort_job = [&world](const Status& s) {
    if (s.is_user_error()) return ReportError("run", s);  // agreed on every rank
    const std::string who = "rank " + std::to_string(world.rank());
    const bool named = s.message().rfind(who + " ", 0) == 0;  // lane failures name their rank
    AbortJob(world, "braid run: " + (named ? "" : who + ": ") + FlagWorded(s.message()), kExitFailure);
  };
  if (nodes.ranks_per_node > 0 && a.link_gbps > 0) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "ranks fill the topology's nodes of %d: pairs on different nodes paced at %.4g Gbit/s, %.4g us",
                  nodes.ranks_per_node, a.link_gbps * nodes.bandwidth_ratio, a.link_latency_us * nodes.latency_ratio);
    prepared->notes.push_back(note);
    prepared->topology_recorded = true;
  }
  auto run = ExecuteRun(*prepared, backend);
  if (!run.ok()) return run.status().is_user_error() ? fail(run.status()) : abort_job(run.status());
  if (root) {
    if (int code = StoreAndPrint(a, *prepared, *run); code != kExitOk) return code;
  }
  if (Status v = VerifyVerdict(run->output); !v.ok()) return fail(v);
  return kExitOk;
#else
  return fail(Status::Unavailable("this braid was built without MPI"));
#endif
}

}  // namespace

int ExecuteRun(const RunArgs& a) {
  return DispatchCommand([&] { return ExecuteRunInProcess(a); }, [&] { return ExecuteRunUnderMpi(a); });
}

}  // namespace braid::cli
