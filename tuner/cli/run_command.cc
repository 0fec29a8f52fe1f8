#include "run_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "backend_choice.h"
#include "braid/layer_workload.h"
#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/planner.h"
#include "braid/gpu_files.h"
#include "braid/topology_files.h"
#include "cli_exit.h"
#include "braid/lower_bound.h"
#include "run_report.h"
#include "workload_flags.h"
#include "store_access.h"

namespace braid::cli {

void AddRunOptions(CLI::App* sub, RunArgs* a) {
  sub->add_option("--backend", a->backend, "sim | cpu | cuda")->capture_default_str();
  AddWorkloadOptions(sub, &a->workload, "a layer workload instead of --op/--m/--n/--k: built-in model name or .toml file");
  sub->add_option("--algo", a->algo, "serial | chunked | ring | bidir_ring | iso (layer workloads) | fused")->required();
  sub->add_option("--chunks", a->chunks, "chunks (chunked) or sub-chunks per ring step")->capture_default_str();
  sub->add_option("--splits", a->splits, "uneven chunk weights for chunked, e.g. 1,2,1");
  sub->add_option("--streams", a->streams, "comm lanes (streams)")->capture_default_str();
  sub->add_option("--comm-sms", a->comm_sms, "SMs / channels for comm; fused: SMs that move tiles (0 = backend default: the topology's NCCL channels)");
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

Status CheckRunOptions(const RunArgs& a) {
  if (a.iters < 1) return Status::Invalid("--iters must be at least 1");
  if (a.warmup < 0) return Status::Invalid("--warmup must not be negative");
  if (a.chunks < 1) return Status::Invalid("--chunks must be at least 1 (got " + std::to_string(a.chunks) + ")");
  if (a.comm_sms < 0) return Status::Invalid("--comm-sms must not be negative (got " + std::to_string(a.comm_sms) + ")");
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
  if (!a.no_db) {
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

}  // namespace

int ExecuteRun(const RunArgs& a) {
  if (Status s = CheckRunOptions(a); !s.ok()) return ReportError("run", s);
  std::optional<LayerWorkload> layer;
  auto plan = PlanFromArgs(a, &layer);
  if (!plan.ok()) return ReportError("run", plan.status());
  auto topo = LoadTopology(a.topology);
  if (!topo.ok()) return ReportError("run", topo.status());
  if (Status s = topo->CheckFits(a.workload.tp); !s.ok()) return ReportError("run", s);
  if (Status s = CheckCommSmsFit(a.comm_sms, *topo); !s.ok()) return ReportError("run", s);
  if (a.verify && a.backend == "sim") {
    return ReportError("run", Status::Invalid("--verify needs real data: the sim backend computes none (use --backend cpu)"));
  }
  auto backend = MakeBackend(a.backend, a.topology, CpuBackendOptions{a.link_gbps, a.link_latency_us}, a.cuda);
  if (!backend.ok()) return ReportError("run", backend.status());

  RunOptions opt;
  opt.iters = a.iters;
  opt.warmup = a.warmup;
  opt.verify = a.verify;
  opt.seed = a.seed;
  auto out = (*backend)->Run(*plan, opt);
  if (!out.ok()) return ReportError("run", out.status());

  // DESIGN.md's lower bound: the unsplit (serial) plan's compute alone and
  // its communication alone, on the same backend.
  const OverlapConfig serial_config;
  auto serial = layer ? BuildLayerPlan(*layer, serial_config) : BuildPlan(plan->workload, serial_config);
  if (!serial.ok()) return ReportError("run", serial.status());
  auto lb = MeasureLowerBound(**backend, *serial, opt);
  if (!lb.ok()) return ReportError("run", lb.status());
  RunRecord rec = RecordOfRun(*plan, topo->name, (*backend)->name(), opt, *out, *lb);
  if (layer) rec.notes["layer"] = LayerJson(*layer);
  if (!a.no_db) {
    auto store = OpenStoreForWrite(a.db);
    if (!store.ok()) return ReportError("run", store.status());
    auto id = (*store)->WriteRun(MetaOf(rec), LanesOf(*plan), out->events, RowsOf(rec));
    if (!id.ok()) return ReportError("run", id.status());
    rec.run_id = *id;
  }
  if (a.json) {
    std::cout << RunJson(rec).dump(2) << "\n";
  } else {
    std::cout << RunTable(rec);
  }
  std::cout.flush();
  if (out->verify.ran && !out->verify.ok) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "verification failed: max relative error %.3g on rank %d exceeds 1e-4",
                  out->verify.max_rel_error, out->verify.worst_rank);
    return ReportError("run", Status::Internal(msg));
  }
  return kExitOk;
}

}  // namespace braid::cli
