#include <cmath>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>

#include "braid/metric_rows.h"
#include "braid/notes_keys.h"
#include "braid/planner.h"
#include "braid/stored_text.h"
#include "braid/tune.h"
#include "store_trial_runner.h"

namespace braid {

namespace {

using tuning::StoreTrialRunner;

Status CheckRequest(const TuneRequest& q) {
  if (q.targets.empty()) return Status::Invalid("nothing to tune: the request has no ops");
  if (!std::isfinite(q.time_budget_s) || q.time_budget_s < 0) {
    return Status::Invalid("the time budget must be a finite number of seconds, not negative");
  }
  if (q.search.iters < 1) return Status::Invalid("a full measurement needs at least 1 timed iteration");
  if (q.search.warmup < 0) return Status::Invalid("warm-up iterations must not be negative");
  if (q.search.iters > kMaxTrialIterations || q.search.warmup > kMaxTrialIterations) {
    return Status::Invalid("`iters` and `warmup` of a trial must be at most " + std::to_string(kMaxTrialIterations) +
                           " (a tuner compares medians, which settle far sooner)");
  }
  if (q.search.budget < 0) return Status::Invalid("the trial budget must not be negative");
  if (q.search.strategy == Strategy::kGuided && !q.make_guide) return Status::Invalid("guided needs a guide");
  if (q.baseline_block && !q.block) return Status::Invalid("a baseline block needs a training step's block");
  if (q.runtime == TuneRuntime::kTe) {
    for (const TuneTarget& t : q.targets) {
      if (t.comm_dtype.has_value()) {
        return Status::Invalid("`comm_dtype` with runtime te: TE moves the GEMM's own dtypes (fp8_buf as TE sets it)");
      }
    }
  }
  if (q.session != 0 && !q.resume) return Status::Invalid("a session id names the session a resume continues");
  return Status::Ok();
}

bool SameRequest(const SessionInfo& a, const SessionInfo& b) {
  return a.workload_key == b.workload_key && a.topology == b.topology && a.backend == b.backend &&
         a.strategy == b.strategy && a.options_json == b.options_json;
}

// A new session, or with `resume` the unfinished session of the same request.
// A session named by id may be done: its trials are all recorded, so running
// it again replays them and measures nothing (how the presets of a session
// whose preset file could not be written are had again); *done says so.
Result<int64_t> FindOrCreateSession(Store& store, const TuneRequest& q, const SessionInfo& info, bool* resumed,
                                    bool* done) {
  *resumed = false;
  *done = false;
  if (!q.resume) return store.CreateSession(info);
  BRAID_ASSIGN_OR_RETURN(auto sessions, store.ListSessions());
  const std::string id = std::to_string(q.session);
  for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) {
    const StoredSession& s = *it;
    if (q.session != 0 && s.id != q.session) continue;
    const bool same = SameRequest(s.info, info);
    if (q.session != 0 && !same) {
      return Status::Invalid("tuning session " + id + " in " + store.path() + " was another request (" +
                             s.info.workload_key + " on " + s.info.topology + ", " + s.info.backend + ", " +
                             s.info.strategy + ", options " + s.info.options_json + ")");
    }
    if (!same) continue;
    if (s.status == "done" && q.session == 0) continue;
    *done = s.status == "done";
    *resumed = true;  // RunTuning marks it running once its trials have been read
    return s.id;
  }
  if (q.session != 0) return Status::Invalid("no tuning session " + id + " in " + store.path());
  return Status::Invalid("no unfinished tuning session of this request in " + store.path() +
                         " to resume (run without `resume` to start one)");
}

// Overlap ratio, tail and lower bound of a stored run (p50 of the worst rank).
struct StoredFigures {
  double overlap_ratio = 0, tail_ns = 0, lower_bound_ns = 0;
  std::optional<BoundGap> gap;
};

StoredFigures FiguresOfRun(const Store& store, int64_t run) {
  StoredFigures f;
  if (run < 0) return f;
  auto rows = store.LoadMetrics(run);
  if (!rows.ok() || rows->empty()) return f;
  const RunFigures figures = RunFiguresFromRows(*rows);
  f.overlap_ratio = figures.metrics.overall[Metric::kOverlapRatio].p50;
  f.tail_ns = figures.metrics.overall[Metric::kTail].p50;
  if (figures.lower_bound) f.lower_bound_ns = figures.lower_bound->lower_bound_ns();
  f.gap = BoundGapOf(figures);
  return f;
}

// The sim's error band kept with a stored run's notes: {band, assumed}; {0,
// false} where there is none (a backend that measures) or it cannot be read.
std::pair<double, bool> ErrorBandOfStoredRun(const Store& store, int64_t run) {
  if (run < 0) return {0, false};
  auto stored = store.GetRun(run);
  if (!stored.ok()) return {0, false};
  auto notes = DecodeNotesText(stored->meta.notes_json, "run " + std::to_string(run));
  if (!notes.ok() || !notes->contains(note::kErrorBand)) return {0, false};
  return {(*notes)[note::kErrorBand].get<double>(), notes->value(note::kErrorBandAssumed, false)};
}

// What config a block's GEMM runs with (nullopt: derived from a serial run).
using ConfigOf = std::function<std::optional<OverlapConfig>(const LayerOp&)>;

// The train layer with every GEMM at the config `config_of` gives it.
LayerWorkload BlockWith(const LayerWorkload& block, const ConfigOf& config_of) {
  LayerWorkload out = block;
  for (LayerOp& op : out.ops) op.config = config_of(op);
  return out;
}

// The whole block measured at the tuned configs, TE's defaults and serial.
Result<BlockFigures> MeasureBlock(const TuneRequest& q, const std::vector<TuneResult>& results,
                                  StoreTrialRunner& runner, const Store& store) {
  const LayerWorkload& block = *q.block;
  // A pair's result carries its dgrad's pass; attention has none.
  auto result_of = [&](const LayerOp& op) -> const TuneResult* {
    const Pass wanted = op.pass == Pass::kFprop ? Pass::kFprop : Pass::kDgrad;
    for (const TuneResult& r : results) {
      if (r.layer == block.model.name + "/" + op.linear && r.pass == wanted) return &r;
    }
    return nullptr;
  };
  auto tuned = [&](const LayerOp& op) -> std::optional<OverlapConfig> {
    const TuneResult* r = result_of(op);
    if (!r) return std::nullopt;
    return op.pass == Pass::kWgrad ? r->wgrad_config : r->config;
  };
  auto te = [&](const LayerOp& op) -> std::optional<OverlapConfig> {
    const TuneResult* r = result_of(op);
    if (!r || op.pass == Pass::kWgrad) return std::nullopt;  // the wgrad follows TE's dgrad
    return r->te_default;
  };
  auto serial = [](const LayerOp&) -> std::optional<OverlapConfig> { return std::nullopt; };
  auto baseline = [&](const LayerOp& op) -> std::optional<OverlapConfig> {
    for (const LayerOp& b : q.baseline_block->ops) {
      if (b.name == op.name) return b.config;
    }
    return std::nullopt;
  };
  BlockFigures out;
  if (q.baseline_block) out.baseline = BlockFigures::Figures{};
  std::vector<std::tuple<const char*, ConfigOf, BlockFigures::Figures*>> kinds = {
      {"block.tuned", tuned, &out.tuned},
      {"block.te_default", te, &out.te_default},
      {"block.serial", serial, &out.serial}};
  if (q.baseline_block) kinds.emplace_back("block.baseline", baseline, &*out.baseline);
  for (const auto& [name, config_of, figures] : kinds) {
    runner.SetTarget({name, Workload{}, block.model.name, Pass::kFprop, BlockWith(block, config_of)});
    BRAID_ASSIGN_OR_RETURN(auto m, runner.Measure(0, OverlapConfig{}, q.search.warmup, q.search.iters, "full"));
    figures->time_ns = m.median_ns;
    figures->run = runner.RunOf(OverlapConfig{}, "full");
    const StoredFigures f = FiguresOfRun(store, figures->run);
    figures->overlap_ratio = f.overlap_ratio;
    figures->lower_bound_ns = f.lower_bound_ns;
  }
  return out;
}

// The blocks a tuned block is compared with.
enum class BlockChoice { kTeDefault, kBaseline, kSerial };

const char* BlockChoiceName(BlockChoice c) {
  switch (c) {
    case BlockChoice::kTeDefault:
      return "TE's default";
    case BlockChoice::kBaseline:
      return "the baseline";
    case BlockChoice::kSerial:
      break;
  }
  return "serial";
}

// @pre b.baseline for kBaseline
const BlockFigures::Figures& FiguresAt(const BlockFigures& b, BlockChoice c) {
  switch (c) {
    case BlockChoice::kTeDefault:
      return b.te_default;
    case BlockChoice::kBaseline:
      return *b.baseline;
    case BlockChoice::kSerial:
      break;
  }
  return b.serial;
}

// Which block the tuned one must not be slower than: TE's default, the
// user's baseline, and (runtime braid) serial; nullopt when the tuned block
// is the fastest. GEMMs tuned one target at a time may lose together (lanes
// and SMs they share as a block).
std::optional<BlockChoice> FasterBlock(const BlockFigures& b, TuneRuntime runtime) {
  std::optional<BlockChoice> best;
  double best_ns = b.tuned.time_ns;
  for (BlockChoice c : {BlockChoice::kTeDefault, BlockChoice::kBaseline, BlockChoice::kSerial}) {
    if (c == BlockChoice::kBaseline && !b.baseline) continue;
    if (c == BlockChoice::kSerial && runtime != TuneRuntime::kBraid) continue;
    if (FiguresAt(b, c).time_ns < best_ns) {
      best = c;
      best_ns = FiguresAt(b, c).time_ns;
    }
  }
  return best;
}

// Every result at the faster block's config for its GEMM (and the pair's
// wgrad as it follows), with that config's measured time.
Status AdoptBlock(BlockChoice choice, std::vector<TuneResult>& results) {
  for (TuneResult& r : results) {
    switch (choice) {
      case BlockChoice::kTeDefault:
        r.config = r.te_default;
        r.time_ns = r.te_default_ns;
        r.error_band = r.te_default_error_band;
        break;
      case BlockChoice::kBaseline:
        if (!r.baseline) continue;
        r.config = *r.baseline;
        r.time_ns = r.baseline_ns;
        r.error_band = r.baseline_error_band;
        break;
      case BlockChoice::kSerial:
        r.config = OverlapConfig{};
        r.time_ns = r.serial_ns;
        r.error_band = r.serial_error_band;
        break;
    }
    r.ci_low_ns = r.ci_high_ns = r.time_ns;
    if (r.train_ops) {
      BRAID_ASSIGN_OR_RETURN(auto configs, TrainOpConfigs(*r.train_ops, r.config));
      r.wgrad_config = configs.at(1);
    }
  }
  return Status::Ok();
}

// The guides and search spaces of a request, or why it cannot run.
struct Prepared {
  std::vector<Guide> guides;
  std::vector<std::vector<OverlapConfig>> spaces;
};

Result<Prepared> Prepare(const TuneRequest& q) {
  BRAID_RETURN_IF_ERROR(CheckRequest(q));
  Prepared p;
  p.guides.resize(q.targets.size());
  for (size_t i = 0; i < q.targets.size(); ++i) {
    const TuneTarget& t = q.targets[i];
    BRAID_RETURN_IF_ERROR(t.w.Validate());
    p.spaces.push_back(SearchSpaceOfTarget(t, q.knobs, q.gpu_sms, q.runtime));
    if (t.baseline) {
      const Result<Plan> plan = PlanOfTarget(t, *t.baseline);
      if (!plan.ok())
        return Status::Invalid(t.name + ": the baseline " + t.baseline->Describe() + ": " + plan.status().message());
    }
    if (p.spaces.back().empty()) return Status::Invalid("no valid config to try for " + t.name + " " + t.w.Describe());
    if (q.search.strategy == Strategy::kGuided) {
      BRAID_ASSIGN_OR_RETURN(auto g, q.make_guide(t));
      p.guides[i] = g;
    }
  }
  return p;
}

}  // namespace

Status CheckTuneRequest(const TuneRequest& q) { return Prepare(q).status(); }

Result<TuneSummary> RunTuning(const TuneRequest& q, Backend& backend, Store& store, const TuneObserver& observer) {
  // Everything that can refuse the request does so before the store changes.
  BRAID_ASSIGN_OR_RETURN(auto prepared, Prepare(q));
  const std::vector<Guide>& guides = prepared.guides;
  const std::vector<std::vector<OverlapConfig>>& spaces = prepared.spaces;
  const TuneClock clock = q.clock ? q.clock : TuneClock([] { return std::chrono::steady_clock::now(); });

  const SessionInfo info{q.workload_key,  q.topology,    q.backend, std::string(StrategyName(q.search.strategy)),
                         q.search.budget, q.options_json};
  bool resumed = false, was_done = false;
  BRAID_ASSIGN_OR_RETURN(auto session, FindOrCreateSession(store, q, info, &resumed, &was_done));
  auto recorded = tuning::RecordedTrials(store, session);
  if (!recorded.ok()) return recorded.status();  // a damaged session is left as it was
  // A done session stays done: replaying it changes nothing stored.
  if (resumed && !was_done) BRAID_RETURN_IF_ERROR(store.SetSessionStatus(session, "running"));
  if (resumed && observer.on_resume) observer.on_resume(session, recorded->size(), was_done);

  StoreTrialRunner runner(store, session, backend, q.topology, q.base, &*recorded, clock);
  const auto start = clock();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(q.time_budget_s));
  TuneSummary summary;
  summary.session = session;
  summary.workload = q.workload_key;
  summary.topology = q.topology;
  summary.gpu = q.gpu;
  summary.backend = q.backend;
  summary.strategy = std::string(StrategyName(q.search.strategy));
  summary.was_done = was_done;

  for (size_t i = 0; i < q.targets.size(); ++i) {
    const TuneTarget& t = q.targets[i];
    runner.SetTarget(t);
    if (q.time_budget_s > 0) {
      // What is left, shared evenly among the ops still to tune.
      const auto now = clock();
      runner.SetDeadline(now + (deadline - now) / long(q.targets.size() - i));
    }
    if (observer.on_target) observer.on_target(t, i, q.targets.size());
    SearchOptions opt = q.search;
    opt.guide = guides[i];
    const std::vector<OverlapConfig>& space = spaces[i];
    if (observer.on_trial) {
      opt.on_trial = [&](const SearchProgress& p) { observer.on_trial(p, space[p.best]); };
    }
    Result<TuneResult> r = TuneOne(t, space, runner, opt, /*baselines=*/true, q.runtime);
    if (!r.ok()) {
      if (!was_done) (void)store.SetSessionStatus(session, "interrupted");  // its trials stay, for --resume
      return r.status();
    }
    r->trials = runner.TrialsOfTarget();
    r->run = runner.RunOf(r->config, "full");
    const StoredFigures f = FiguresOfRun(store, r->run);
    r->overlap_ratio = f.overlap_ratio;
    r->tail_ns = f.tail_ns;
    r->lower_bound_ns = f.lower_bound_ns;
    r->gap = f.gap;
    std::tie(r->error_band, r->error_band_assumed) = ErrorBandOfStoredRun(store, r->run);
    r->te_default_error_band = ErrorBandOfStoredRun(store, runner.RunOf(r->te_default, "full")).first;
    r->serial_error_band = ErrorBandOfStoredRun(store, runner.RunOf(OverlapConfig{}, "full")).first;
    if (r->baseline) r->baseline_error_band = ErrorBandOfStoredRun(store, runner.RunOf(*r->baseline, "full")).first;
    if (observer.on_result) observer.on_result(*r);
    summary.trials += r->trials;
    summary.results.push_back(std::move(*r));
  }
  if (q.block) {
    Result<BlockFigures> block = MeasureBlock(q, summary.results, runner, store);
    if (!block.ok()) {
      if (!was_done) (void)store.SetSessionStatus(session, "interrupted");
      return block.status();
    }
    summary.trials += block->baseline ? 4 : 3;  // the block's tuned, TE default, serial (and baseline) runs
    if (const std::optional<BlockChoice> faster = FasterBlock(*block, q.runtime)) {
      const BlockFigures::Figures won = FiguresAt(*block, *faster);
      block->note = "the per-GEMM winners ran " + std::to_string(std::llround(block->tuned.time_ns)) +
                    " ns as a block, slower than " + BlockChoiceName(*faster) + " (" +
                    std::to_string(std::llround(won.time_ns)) + " ns): the block keeps its configs";
      block->tuned = won;
      if (Status s = AdoptBlock(*faster, summary.results); !s.ok()) {
        if (!was_done) (void)store.SetSessionStatus(session, "interrupted");
        return s;
      }
    }
    summary.block = *block;
  }
  BRAID_RETURN_IF_ERROR(store.SetSessionStatus(session, "done"));
  summary.measured = runner.measured();
  summary.replayed = runner.replayed();
  return summary;
}

}  // namespace braid
