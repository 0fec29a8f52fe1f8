#include "run_command.h"

#include <cstdio>
#include <iostream>

#include "backend_choice.h"
#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/planner.h"
#include "braid/size_parse.h"
#include "braid/topology_files.h"
#include "cli_exit.h"
#include "run_report.h"
#include "store_access.h"

namespace braid::cli {

void AddRunOptions(CLI::App* sub, RunArgs* a) {
  sub->add_option("--backend", a->backend, "sim | cpu | cuda")->capture_default_str();
  sub->add_option("--op", a->op, "ag_gemm | gemm_rs | gemm_ar")->required();
  sub->add_option("--m", a->m, "rows of A and C (K/M/G suffixes)")->required();
  sub->add_option("--n", a->n, "columns of B and C")->required();
  sub->add_option("--k", a->k, "inner dimension")->required();
  sub->add_option("--tp", a->tp, "tensor-parallel degree P")->required();
  sub->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32")->capture_default_str();
  sub->add_option("--algo", a->algo, "serial | chunked | ring | bidir_ring")->required();
  sub->add_option("--chunks", a->chunks, "chunks (chunked) or sub-chunks per ring step")->capture_default_str();
  sub->add_option("--splits", a->splits, "uneven chunk weights for chunked, e.g. 1,2,1");
  sub->add_option("--streams", a->streams, "comm lanes (streams)")->capture_default_str();
  sub->add_option("--comm-sms", a->comm_sms, "SMs / channels for comm (0 = backend default)");
  sub->add_option("--comm-engine", a->comm_engine, "sm | ce (copy engine)")->capture_default_str();
  sub->add_option("--topology", a->topology, "built-in name or .toml file")->capture_default_str();
  sub->add_option("--iters", a->iters, "timed iterations")->capture_default_str();
  sub->add_option("--warmup", a->warmup, "warm-up iterations")->capture_default_str();
  sub->add_flag("--verify", a->verify, "check every rank's output against a plain reference");
  sub->add_flag("--json", a->json, "print one JSON object");
  sub->add_option("--db", a->db, "SQLite store to record the run in")->capture_default_str();
  sub->add_flag("--no-db", a->no_db, "do not record the run");
  sub->add_option("--link-gbps", a->link_gbps, "cpu: pace transfers at this Gbit/s per rank pair");
  sub->add_option("--link-latency-us", a->link_latency_us, "cpu: added latency per message");
  sub->add_option("--seed", a->seed, "input data seed")->capture_default_str();
}

namespace {

Result<Plan> PlanFromArgs(const RunArgs& a) {
  Workload w;
  auto op = ParseOp(a.op);
  if (!op.ok()) return op.status();
  w.op = *op;
  for (auto [text, flag, dst] : {std::tuple{&a.m, "--m", &w.m}, {&a.n, "--n", &w.n}, {&a.k, "--k", &w.k}}) {
    auto v = ParseSize(*text, flag);
    if (!v.ok()) return v.status();
    *dst = *v;
  }
  if (a.tp <= 0) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(a.tp) + ")");
  w.tp = a.tp;
  auto dt = ParseDType(a.dtype);
  if (!dt.ok()) return dt.status();
  w.dtype = *dt;

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
  return BuildPlan(w, c);
}

Status CheckRunOptions(const RunArgs& a) {
  if (a.iters < 1) return Status::Invalid("--iters must be at least 1");
  if (a.warmup < 0) return Status::Invalid("--warmup must not be negative");
  if (a.link_gbps < 0) return Status::Invalid("--link-gbps must not be negative");
  if (a.link_latency_us < 0) return Status::Invalid("--link-latency-us must not be negative");
  if (a.link_latency_us > 0 && a.link_gbps == 0) {
    return Status::Invalid("--link-latency-us needs --link-gbps");
  }
  if (!a.no_db) {
    if (a.db.empty()) return Status::Invalid("--db needs a file name (or use --no-db)");
    return CheckStoreWritable(a.db);
  }
  return Status::Ok();
}

}  // namespace

int ExecuteRun(const RunArgs& a) {
  if (Status s = CheckRunOptions(a); !s.ok()) return ReportError("run", s);
  auto plan = PlanFromArgs(a);
  if (!plan.ok()) return ReportError("run", plan.status());
  auto topo = LoadTopology(a.topology);
  if (!topo.ok()) return ReportError("run", topo.status());
  if (Status s = topo->CheckFits(a.tp); !s.ok()) return ReportError("run", s);
  if (a.verify && a.backend == "sim") {
    return ReportError("run", Status::Invalid("--verify needs real data: the sim backend computes none (use --backend cpu)"));
  }
  auto backend = MakeBackend(a.backend, a.topology);
  if (!backend.ok()) return ReportError("run", backend.status());

  RunOptions opt;
  opt.iters = a.iters;
  opt.warmup = a.warmup;
  opt.verify = a.verify;
  opt.seed = a.seed;
  opt.link_gbps = a.link_gbps;
  opt.link_latency_us = a.link_latency_us;
  auto out = (*backend)->Run(*plan, opt);
  if (!out.ok()) return ReportError("run", out.status());

  RunRecord rec = RecordOfRun(*plan, topo->name, (*backend)->name(), opt, *out);
  if (!a.no_db) {
    auto store = OpenStoreForWrite(a.db);
    if (!store.ok()) return ReportError("run", store.status());
    auto id = (*store)->WriteRun(MetaOf(rec), LanesOf(*plan), out->events, MetricRowsOf(rec.metrics));
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
