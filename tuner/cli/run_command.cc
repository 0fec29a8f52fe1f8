#include "run_command.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include "backend_choice.h"
#include "braid/comm_sms_effect.h"
#include "braid/cpu_process_backend.h"
#include "braid/gpu_files.h"
#include "braid/launcher.h"
#include "braid/layer_workload.h"
#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/planner.h"
#include "braid/topology_files.h"
#if defined(BRAID_HAVE_MPI)
#include "braid/mpi_transport.h"
#endif
#include "braid/lower_bound.h"
#include "cli_exit.h"
#include "field_flags.h"
#include "mpi_job.h"
#include "run_report.h"
#include "store_access.h"
#include "workload_flags.h"

namespace braid::cli {

void AddRunOptions(CLI::App* sub, RunArgs* a) {
  sub->add_option("--backend", a->backend, "sim | cpu | cuda")->capture_default_str();
  AddWorkloadOptions(sub, &a->workload,
                     "a layer workload instead of --op/--m/--n/--k: built-in model name or .toml file");
  sub->add_option("--algo", a->algo, "serial | chunked | ring | bidir_ring | iso (layer workloads) | fused")
      ->required();
  sub->add_option("--chunks", a->chunks, "chunks (chunked) or sub-chunks per ring step")->capture_default_str();
  sub->add_option("--splits", a->splits, "uneven chunk weights for chunked, e.g. 1,2,1");
  sub->add_option("--streams", a->streams, "comm lanes (streams)")->capture_default_str();
  sub->add_option(
      "--comm-sms", a->comm_sms,
      "SMs / channels for comm; fused: SMs that move tiles (0 = backend default: the topology's NCCL channels)");
  sub->add_option("--comm-engine", a->comm_engine, "sm | ce (copy engine)")->capture_default_str();
  sub->add_option("--comm-priority", a->comm_priority, "high | normal: comm streams above the GEMM's, or equal")
      ->capture_default_str();
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
  a->timeout_option = sub->get_option("--timeout");
}

namespace {

Result<OverlapConfig> ConfigFromArgs(const RunArgs& a) {
  OverlapConfig c;
  auto algo = ParseAlgorithm(a.algo);
  if (!algo.ok()) return algo.status();
  c.algorithm = *algo;
  c.chunks = a.chunks;
  if (!a.splits.empty()) {
    auto s = ParseSplits(a.splits);
    if (!s.ok()) return s.status();
    c.splits = *s;
  }
  c.comm_lanes = a.streams;
  c.comm_sms = a.comm_sms;
  auto eng = ParseCommEngine(a.comm_engine);
  if (!eng.ok()) return eng.status();
  c.comm_engine = *eng;
  if (a.comm_priority != "high" && a.comm_priority != "normal") {
    return Status::Invalid("--comm-priority '" + OneLine(a.comm_priority) + "': use high or normal");
  }
  c.comm_high_priority = a.comm_priority == "high";
  return c;
}

Result<Plan> PlanFromArgs(const RunArgs& a, std::optional<LayerWorkload>* layer) {
  BRAID_RETURN_IF_ERROR(CheckWorkloadForm(a.workload));
  if (!a.workload.model.empty()) {
    auto lw = LayerFromArgs(a.workload);
    if (!lw.ok()) return lw.status();
    auto c = ConfigFromArgs(a);
    if (!c.ok()) return c.status();
    *layer = *lw;
    return BuildLayerPlan(*lw, *c);
  }
  auto w = WorkloadFromFlags(a.workload.op, a.workload.m, a.workload.n, a.workload.k, a.workload.tp, a.workload.dtype);
  if (!w.ok()) return w.status();
  auto c = ConfigFromArgs(a);
  if (!c.ok()) return c.status();
  return BuildPlan(*w, *c);
}

// The layer part of a stored run's workload (run_report.cc merges it into
// the workload JSON). The store's Workload columns hold the first GEMM op.
nlohmann::json LayerJson(const LayerWorkload& lw) {
  nlohmann::json ops = nlohmann::json::array();
  for (const LayerOp& op : lw.ops) {
    nlohmann::json o = {{"name", op.name}};
    if (op.kind == LayerOpKind::kAttention) {
      o["kind"] = "attention";
      o["flops_per_rank"] = op.flops;
    } else {
      o["kind"] = op.kind == LayerOpKind::kLocalGemm ? "gemm" : std::string(OpName(op.gemm.op));
      o["m"] = op.gemm.m;
      o["n"] = op.gemm.n;
      o["k"] = op.gemm.k;
    }
    ops.push_back(std::move(o));
  }
  return {{"model", lw.model.name},
          {"seq", lw.seq},
          {"batch", lw.batch},
          {"phase", PhaseName(lw.phase)},
          {"sequence_parallel", lw.sequence_parallel},
          {"describe", lw.Describe()},
          {"ops", ops}};
}

Status CheckRunOptions(const RunArgs& a, bool writes_store) {
  if (a.iters < 1) return Status::Invalid("--iters must be at least 1");
  if (a.warmup < 0) return Status::Invalid("--warmup must not be negative");
  if (a.chunks < 1) return Status::Invalid("--chunks must be at least 1 (got " + std::to_string(a.chunks) + ")");
  if (a.comm_sms < 0)
    return Status::Invalid("--comm-sms must not be negative (got " + std::to_string(a.comm_sms) + ")");
  for (auto [v, flag] : {std::pair{a.link_gbps, "--link-gbps"}, {a.link_latency_us, "--link-latency-us"}}) {
    if (!std::isfinite(v) || v < 0) return Status::Invalid(std::string(flag) + " must be a finite number, 0 or more");
  }
  if (a.link_latency_us > 0 && a.link_gbps == 0) {
    return Status::Invalid("--link-latency-us needs --link-gbps");
  }
  // Knobs the backend would ignore while the output claims them.
  if (a.link_gbps > 0 && a.backend != "cpu") {
    return Status::Invalid("--link-gbps applies to the cpu backend only (the " + a.backend +
                           " backend takes its links from --topology)");
  }
  if (a.comm_sms > 0 && a.backend == "cpu") {
    return Status::Invalid("--comm-sms applies to GPU backends only (the cpu backend has no SMs)");
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

// Comm SMs are taken from the GPU's SMs; the rest compute.
Status CheckCommSmsFit(int comm_sms, const Topology& topo) {
  if (comm_sms == 0) return Status::Ok();
  auto gpu = LoadGpu(topo.gpu);
  if (!gpu.ok()) return gpu.status();
  if (comm_sms >= gpu->sm_count) {
    return Status::Invalid("--comm-sms " + std::to_string(comm_sms) + " leaves no SM to compute on: " + gpu->name +
                           " has " + std::to_string(gpu->sm_count) + " SMs (topology " + topo.name + ")");
  }
  return Status::Ok();
}

// A --comm-sms that the sim reads nowhere would be recorded as a knob that
// changed nothing. (The cuda backend reads it for every config: its GEMMs
// leave that many SMs free.)
Status CheckCommSmsTakeEffect(const RunArgs& a, const Plan& plan, const std::optional<LayerWorkload>& layer) {
  if (a.comm_sms == 0 || a.backend != "sim") return Status::Ok();
  std::vector<Op> ops;
  if (layer) {
    for (const LayerOp& op : layer->ops) {
      if (op.kind == LayerOpKind::kTpGemm) ops.push_back(op.gemm.op);
    }
  } else {
    ops.push_back(plan.workload.op);
  }
  for (Op op : ops) {
    if (CommSmsTakeEffect(plan.config, op)) return Status::Ok();
  }
  const std::string why = plan.config.algorithm == Algorithm::kSerial
                              ? "serial runs each collective beside no GEMM"
                              : "on the copy engine an ag_gemm's comm only moves data and holds no SMs";
  return Status::Invalid("--comm-sms has no effect on the sim backend here: " + why + " (drop --comm-sms)");
}

// Everything `run` checks before running: flags, plan, topology.
struct PreparedRun {
  std::optional<LayerWorkload> layer;
  Plan plan;
  std::string topology;
  // A cpu run uses the topology only to place process ranks on its nodes
  // (link emulation under mpirun); otherwise its record names none.
  bool topology_used = false;
  NodeLinks nodes;  // how ranks map to the topology's nodes (link emulation)
  RunOptions options;
};

Result<PreparedRun> PrepareRun(const RunArgs& a, bool writes_store) {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(a, writes_store));
  PreparedRun p;
  auto plan = PlanFromArgs(a, &p.layer);
  if (!plan.ok()) return plan.status();
  p.plan = std::move(*plan);
  auto topo = LoadTopology(a.topology);
  if (!topo.ok()) return topo.status();
  BRAID_RETURN_IF_ERROR(topo->CheckFits(a.workload.tp));
  BRAID_RETURN_IF_ERROR(CheckCommSmsFit(a.comm_sms, *topo));
  BRAID_RETURN_IF_ERROR(CheckCommSmsTakeEffect(a, p.plan, p.layer));
  p.topology = topo->name;
  p.topology_used = a.backend != "cpu";
  p.nodes = NodeLinksOf(*topo);
  if (a.verify && a.backend == "sim") {
    return Status::Invalid("--verify needs real data: the sim backend computes none (use --backend cpu)");
  }
  p.options.iters = a.iters;
  p.options.warmup = a.warmup;
  p.options.verify = a.verify;
  p.options.seed = a.seed;
  return p;
}

// The lower bound (its own backend runs, collective under mpirun), the
// store and the report. Only `root` writes and prints.
Result<RunRecord> RecordWithLowerBound(const PreparedRun& p, Backend& backend, const RunOutput& out) {
  // DESIGN.md's lower bound: the unsplit (serial) plan's compute alone and
  // its communication alone, on the same backend.
  const OverlapConfig serial_config;
  auto serial = p.layer ? BuildLayerPlan(*p.layer, serial_config) : BuildPlan(p.plan.workload, serial_config);
  if (!serial.ok()) return serial.status();
  auto lb = MeasureLowerBound(backend, *serial, p.options);
  if (!lb.ok()) return lb.status();
  RunRecord rec = RecordOfRun(p.plan, p.topology_used ? p.topology : "", backend.name(), p.options, out, *lb);
  if (p.layer) rec.notes["layer"] = LayerJson(*p.layer);
  return rec;
}

int StoreAndPrint(const RunArgs& a, const PreparedRun& p, RunRecord& rec, const RunOutput& out) {
  if (!a.no_db) {
    auto store = OpenStoreForWrite(a.db);
    if (!store.ok()) return ReportError("run", store.status());
    auto id = (*store)->WriteRun(MetaOf(rec), LanesOf(p.plan), out.events, RowsOf(rec));
    if (!id.ok()) return ReportError("run", id.status());
    rec.run_id = *id;
  }
  if (a.json) {
    std::cout << RunJson(rec).dump(2) << "\n";
  } else {
    std::cout << RunTable(rec);
  }
  std::cout.flush();
  return kExitOk;
}

Status VerifyVerdict(const RunOutput& out) {
  if (!out.verify.ran || out.verify.ok) return Status::Ok();
  char msg[160];
  std::snprintf(msg, sizeof msg, "verification failed: max relative error %.3g on rank %d exceeds 1e-4",
                out.verify.max_rel_error, out.verify.worst_rank);
  return Status::Internal(msg);
}

int ExecuteRunInProcess(const RunArgs& a) {
  auto prepared = PrepareRun(a, true);
  if (!prepared.ok()) return ReportError("run", prepared.status());
  if (Status s = CheckTimeoutApplies(a.backend, a.timeout_option); !s.ok()) return ReportError("run", s);
  auto backend = MakeBackend(a.backend, a.topology,
                             CpuOptionsOf(a.link_gbps, a.link_latency_us, a.cuda, a.timeout_option), a.cuda);
  if (!backend.ok()) return ReportError("run", backend.status());
  auto out = (*backend)->Run(prepared->plan, prepared->options);
  if (!out.ok()) return ReportError("run", out.status());
  auto rec = RecordWithLowerBound(*prepared, **backend, *out);
  if (!rec.ok()) return ReportError("run", rec.status());
  if (int code = StoreAndPrint(a, *prepared, *rec, *out); code != kExitOk) return code;
  if (Status v = VerifyVerdict(*out); !v.ok()) return ReportError("run", v);
  return kExitOk;
}

// Every flag that changes what a run does, so that ranks started with
// different arguments are told apart by a hash instead of hanging.
uint64_t ArgumentsHash(const RunArgs& a) {
  const WorkloadArgs& w = a.workload;
  const std::string key =
      a.backend + '\x1f' + w.op + '\x1f' + w.m + '\x1f' + w.n + '\x1f' + w.k + '\x1f' + w.model + '\x1f' + w.seq +
      '\x1f' + w.batch + '\x1f' + w.phase + '\x1f' + w.sequence_parallel + '\x1f' + std::to_string(w.tp) + '\x1f' +
      w.dtype + '\x1f' + a.algo + '\x1f' + std::to_string(a.chunks) + '\x1f' + a.splits + '\x1f' +
      std::to_string(a.streams) + '\x1f' + std::to_string(a.comm_sms) + '\x1f' + a.comm_engine + '\x1f' +
      a.comm_priority + '\x1f' + a.topology + '\x1f' + std::to_string(a.iters) + '\x1f' + std::to_string(a.warmup) +
      '\x1f' + std::to_string(a.verify) + '\x1f' + std::to_string(a.link_gbps) + '\x1f' +
      std::to_string(a.link_latency_us) + '\x1f' + std::to_string(a.seed) + '\x1f' + std::to_string(a.cuda.timeout_s);
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  return h;
}

Status SameArgumentsEverywhere(Launcher& world, const RunArgs& a) {
  return SameAsRank0(world, ArgumentsHash(a), kArgumentsDiffer);
}

int ExecuteRunUnderMpi(const RunArgs& a) {
  const double timeout = MpiTimeout(a.cuda, a.timeout_option);
  auto launcher = MakeLauncher(timeout);
  if (!launcher.ok()) return ReportError("run", launcher.status());
  Launcher& world = **launcher;
  const bool root = world.is_root();
  // Bad input: found on every rank alike, printed once, exit 2 everywhere.
  auto fail = [root](const Status& s) {
    if (root) return ReportError("run", s);
    return s.is_user_error() ? kExitUsage : kExitFailure;
  };
  Status checked = SameArgumentsEverywhere(world, a);
  if (checked.ok()) checked = CheckJobShape(world, a.backend, a.workload.tp, /*cuda_allowed=*/true);
  Result<PreparedRun> prepared = Status::Internal("not prepared");
  if (checked.ok()) {
    prepared = PrepareRun(a, root);
    checked = prepared.status();
  }
  checked = AgreeOnStatus(world, checked);
  if (!checked.ok()) return fail(checked);
  if (world.world_size() == 1) return ExecuteRunInProcess(a);

#if defined(BRAID_HAVE_MPI)
  const CpuBackendOptions cpu{a.link_gbps, a.link_latency_us};
  std::unique_ptr<Backend> made;
  if (a.backend == "cuda") {
    // One process per GPU: every rank gets the same verdict (no GPU: exit 1).
    auto cuda = MakeCudaProcessBackend(a.topology, a.cuda, &world);
    if (!cuda.ok()) return fail(cuda.status());
    made = std::move(*cuda);
  } else {
    made = std::make_unique<CpuProcessBackend>(&world, cpu, MpiTransportFactory(timeout, prepared->nodes));
  }
  Backend& backend = *made;
  // A failure while running leaves the peers waiting: end the job.
  auto abort_job = [&world](const Status& s) {
    if (s.is_user_error()) return ReportError("run", s);  // agreed on every rank
    const std::string who = "rank " + std::to_string(world.rank());
    const bool named = s.message().rfind(who + " ", 0) == 0;  // lane failures name their rank
    AbortJob(world, "braid run: " + (named ? "" : who + ": ") + FlagWorded(s.message()), kExitFailure);
  };
  auto out = backend.Run(prepared->plan, prepared->options);
  if (!out.ok()) return out.status().is_user_error() ? fail(out.status()) : abort_job(out.status());
  if (prepared->nodes.ranks_per_node > 0 && a.link_gbps > 0) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "ranks fill the topology's nodes of %d: pairs on different nodes paced at %.4g Gbit/s, %.4g us",
                  prepared->nodes.ranks_per_node, a.link_gbps * prepared->nodes.bandwidth_ratio,
                  a.link_latency_us * prepared->nodes.latency_ratio);
    out->notes.push_back(note);
    prepared->topology_used = true;
  }
  auto rec = RecordWithLowerBound(*prepared, backend, *out);
  if (!rec.ok()) return abort_job(rec.status());
  if (root) {
    if (int code = StoreAndPrint(a, *prepared, *rec, *out); code != kExitOk) return code;
  }
  if (Status v = VerifyVerdict(*out); !v.ok()) return fail(v);
  return kExitOk;
#else
  return fail(Status::Unavailable("this braid was built without MPI"));
#endif
}

}  // namespace

int ExecuteRun(const RunArgs& a) {
  if (!StartedByMpiLauncher()) return ExecuteRunInProcess(a);
  return ExecuteRunUnderMpi(a);
}

}  // namespace braid::cli
