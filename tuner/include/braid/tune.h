// One tuning session: for each op of a request, search its space on a
// backend, measure the baselines (serial and TransformerEngine's default),
// and declare a winner — with every trial recorded in the store, so that a
// killed session resumes where it stopped. `braid tune`, the tuner-quality
// benchmark and (later) the viewer's "tune again" call these functions; the
// command only parses flags and prints.
//
// Numbers: a trial's figure is the per-iteration makespan of the worst rank
// (the metric its stored run reports), so a preset's time_ns, its trial's
// stored run and `braid run` of the same config agree.
//
// A winner is never slower than a baseline that was measured: when the
// search's best loses to serial or to TE's default (a noisy target, a tiny
// budget), the faster baseline is the result and `note` says so.
//
// Not thread-safe: one session at a time per Store and Backend.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "braid/backend.h"
#include "braid/bound_gap.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/presets.h"
#include "braid/search.h"
#include "braid/search_space.h"
#include "braid/status.h"
#include "braid/store.h"
#include "braid/te_default.h"
#include "braid/workload.h"

namespace braid {

// One op to tune: "gemm_rs" alone, "fc1" of "llama3-70b/fc1", or in a
// training step "fc1.fprop" or "fc1.backward".
struct TuneTarget {
  std::string name;
  Workload w;         // the GEMM (a backward pair: its dgrad's)
  std::string layer;  // empty for one op
  Pass pass = Pass::kFprop;
  // Training steps only: the ops planned together (BuildLayerPlan). A
  // linear's dgrad and wgrad are one target, as TransformerEngine couples
  // them: a candidate is the dgrad's config and the wgrad follows it (bulk
  // with bulk, external after a row dgrad's ring, serial otherwise). The
  // whole block's figures are targets of this kind too ("block.tuned").
  std::optional<LayerWorkload> train_ops = std::nullopt;
  // What its communication moves (OverlapConfig::comm_dtype), a precision
  // choice the search keeps: every candidate gets it, those that cannot move
  // it are left out. The baselines (serial, TE's default) keep the GEMM's
  // default, as TransformerEngine runs them.
  std::optional<DType> comm_dtype = std::nullopt;
  // The user's own config for this GEMM (a pair: its dgrad's, the wgrad's
  // budget as wgrad_comm_sms), from `tune --baseline FILE.yaml`: measured
  // beside serial and TE's default, and a candidate the winner may be.
  std::optional<OverlapConfig> baseline = std::nullopt;
};

// Which runtime will run the winners: Braid's own plans (every algorithm
// and knob), or TransformerEngine's userbuffers (only what a ub_cfgs file
// expresses, so that `presets export-te` writes exactly what was tuned).
enum class TuneRuntime { kBraid, kTe };
std::string_view TuneRuntimeName(TuneRuntime r);
Result<TuneRuntime> ParseTuneRuntime(std::string_view name);

// The targets of a layer. Forward phases: its TP GEMMs (kTpGemm ops),
// named as the op. A training step: each linear's fprop GEMM
// ("qkv.fprop"), then each linear's dgrad + wgrad pair ("fc2.backward") in
// the backward's order: the twelve GEMMs of TE's ub_cfgs in eight targets.
// Invalid when there is nothing to tune.
Result<std::vector<TuneTarget>> TargetsOfLayer(const LayerWorkload& lw);

// A candidate's plan: BuildPlan of the GEMM, or BuildLayerPlan of the
// target's train ops under `config`.
Result<Plan> PlanOfTarget(const TuneTarget& t, const OverlapConfig& config);
// The plan whose compute alone and communication alone give the target's
// lower bound: every op serial.
Result<Plan> SerialPlanOfTarget(const TuneTarget& t);

// What the tuner tries for a target: BuildSearchSpace of its GEMM, and for a
// column-parallel backward pair also bulk (comm SMs 16 as TE's default, 0,
// 8, 32; priority above the GEMMs or equal); only candidates the planner
// accepts for the pair.
// With TuneRuntime::kTe, TeSearchSpaceOfTarget instead.
std::vector<OverlapConfig> SearchSpaceOfTarget(const TuneTarget& t, const BackendKnobs& knobs, int gpu_sms = 0,
                                               TuneRuntime runtime = TuneRuntime::kBraid);

// What TE can run for a target, per its key's methods (braid/te_ub_cfgs.h):
//   all-gather GEMMs (qkv/fc1 fprop, proj/fc2 dgrad): ring_exchange on the
//     copy engine (num_sm 1, or 1..16 with an SM margin) or on SMs (num_sm
//     1, 2, 4, 8, 16, 24, 32; margin or not);
//   reduce-scatter GEMMs (proj/fc2 fprop): ring_exchange (direct) as above,
//     or pipeline with num_splits 2, 3, 4, 6, 8 and num_sm 1..32, margin or not;
//   a column layer's dgrad + wgrad (qkv, fc1): bulk with the two budgets
//     searched independently (num_sm 1..32 each, wgrad_comm_sms the wgrad's),
//     margin or not; or the dgrad as a reduce-scatter (ring_exchange,
//     pipeline) with its wgrad run without overlap;
//   a row layer's dgrad + wgrad (proj, fc2): the dgrad's ring_exchange, the
//     wgrad external;
// each with the comm above the GEMM or level with it where the backend has
// priorities. Only candidates the planner accepts.
std::vector<OverlapConfig> TeSearchSpaceOfTarget(const TuneTarget& t, const BackendKnobs& knobs, int gpu_sms);

// TransformerEngine's default for a target: TeDefaultConfig of its GEMM;
// a column backward pair: bulk with 16 comm SMs (TE's default for bulk).
TeDefault TeDefaultOfTarget(const TuneTarget& t);

// The time a search may still use. Tests give the tuner a clock they
// advance themselves, so no outcome depends on the machine's speed.
using TuneClock = std::function<std::chrono::steady_clock::time_point()>;

// Whether two simulated times cannot be told apart: a ± a_band and b ±
// b_band (relative error bands) overlap.
bool WithinEachOthersBand(double a_ns, double a_band, double b_ns, double b_band);

struct TuneResult {
  std::string op;     // "fc1" (a model's op) or "gemm_rs" (one op)
  std::string layer;  // "llama3-70b/fc1"; empty for one op
  Workload workload;
  OverlapConfig config;
  double time_ns = 0;
  double ci_low_ns = 0, ci_high_ns = 0;
  double serial_ns = 0;
  OverlapConfig te_default;
  std::string te_note;  // why serial stands in for TE's default, if it does
  double te_default_ns = 0;
  std::optional<OverlapConfig> baseline;  // the user's (TuneTarget::baseline), when given
  double baseline_ns = 0;
  double overlap_ratio = 0;
  double tail_ns = 0;
  int candidates = 0;
  int trials = 0;             // this op's distinct trials (search and baselines)
  long long iterations = 0;   // their warm-up + timed iterations
  std::string stopped_by;     // "" | "trial" | "time"
  std::string note;           // e.g. the search's best lost to a baseline
  int64_t run = -1;           // the stored run of the winner's full measurement
  double lower_bound_ns = 0;  // of the target (its serial plan's compute alone, comm alone); 0 if unknown
  // The sim's expected relative error of time_ns, te_default_ns,
  // baseline_ns and serial_ns (their full measurements' notes; docs/simulator.md, "Error
  // bands"); 0 on backends that measure.
  double error_band = 0, te_default_error_band = 0, baseline_error_band = 0, serial_error_band = 0;
  bool error_band_assumed = false;  // a regime the winner's band weighs has no measured rows
  // Where the winner's time goes beyond that bound (its full measurement's
  // stored figures); nullopt if unknown.
  std::optional<BoundGap> gap;
  Pass pass = Pass::kFprop;
  // A backward pair: the ops it planned, and the config its wgrad followed
  // with the winner (bulk, external or serial).
  std::optional<LayerWorkload> train_ops;
  OverlapConfig wgrad_config;
};

// A training step's whole block (forward + backward) measured three ways:
// every GEMM at its tuned config, at TE's defaults, and serial.
struct BlockFigures {
  struct Figures {
    double time_ns = 0;
    double overlap_ratio = 0;
    double lower_bound_ns = 0;
    int64_t run = -1;
  };
  Figures tuned, te_default, serial;
  std::optional<Figures> baseline;  // the user's ub_cfgs (TuneRequest::baseline_block)
  // Set when the per-GEMM winners together ran slower as a block than TE's
  // default or the baseline: the block (and the presets) keep that one's
  // configs, and this says so.
  std::string note;
};

struct TuneSummary {
  long long session = 0;
  std::string workload;  // the session's workload key
  std::string topology, gpu, backend, strategy;
  int trials = 0;         // sum of the ops' trials: the trials recorded in the session
  int measured = 0;       // of which measured by this call
  int replayed = 0;       // trials a resumed session found recorded
  bool was_done = false;  // the session was done before: its results come from the store
  std::vector<TuneResult> results;
  std::optional<BlockFigures> block;  // training steps
};

// What a session's progress looks like to a caller (all optional).
struct TuneObserver {
  // `done`: a finished session, replayed from its recorded trials.
  std::function<void(long long session, size_t recorded, bool done)> on_resume;
  std::function<void(const TuneTarget&, size_t index, size_t count)> on_target;
  std::function<void(const SearchProgress&, const OverlapConfig& best)> on_trial;
  std::function<void(const TuneResult&)> on_result;
};

struct TuneRequest {
  std::vector<TuneTarget> targets;
  std::string workload_key;  // the session's key (Workload / LayerWorkload Describe())
  std::string topology;      // the topology's name, as recorded
  std::string gpu;           // the topology's GPU, for the presets
  int gpu_sms = 0;           // the search space respects it
  std::string backend;       // the backend's name (sim, cpu, cuda)
  BackendKnobs knobs;        // KnobsOfBackend(backend)
  SearchOptions search;      // strategy, iterations, budget, seed, recheck
  double time_budget_s = 0;  // 0: none; shared evenly among the ops left
  TuneClock clock;           // default: std::chrono::steady_clock::now
  // guided only: the cheap model of one target (braid/sim_guide.h).
  std::function<Result<Guide>(const TuneTarget&)> make_guide;
  // A training step: the whole block, measured at the end (BlockFigures).
  std::optional<LayerWorkload> block;
  // The block with every GEMM at the user's ub_cfgs (TuneTarget::baseline's
  // source), measured with it; only with `block`.
  std::optional<LayerWorkload> baseline_block;
  TuneRuntime runtime = TuneRuntime::kBraid;
  RunOptions base;           // seed (warmup / iters come from `search`)
  std::string options_json;  // the request's other options; a resumed session must match them
  bool resume = false;
  // With resume: this session, which may be done (its trials are replayed,
  // nothing measured, and its results returned again); 0: the latest
  // unfinished session of the request.
  long long session = 0;
};

// Runs the session in `store`. Statuses: Invalid for a request that cannot
// run or a resume that finds nothing to continue (nothing is written then);
// a failure while measuring leaves the session "interrupted" and its trials
// recorded, so that --resume continues it.
// What RunTuning refuses before it touches the store (bad options, a
// workload that cannot be planned, no guide): callers check it before
// creating a store file.
[[nodiscard]] Status CheckTuneRequest(const TuneRequest& request);

[[nodiscard]] Result<TuneSummary> RunTuning(const TuneRequest& request, Backend& backend, Store& store,
                                            const TuneObserver& observer = {});

// One op's search and baselines on any TrialRunner (no store): what
// RunTuning does per op, and what the tuner-quality benchmark measures.
// `baselines` false skips serial, TE's default and the user's baseline (then
// no winner check). The winner is never slower than a baseline measured:
// serial (runtime braid only: TE has no serial), TE's default, the user's.
[[nodiscard]] Result<TuneResult> TuneOne(const TuneTarget& target, const std::vector<OverlapConfig>& space,
                                         TrialRunner& runner, const SearchOptions& options, bool baselines = true,
                                         TuneRuntime runtime = TuneRuntime::kBraid);

// One preset per result, keyed by the summary's GPU, topology and backend; a
// backward pair gives two (its dgrad's and its wgrad's, each with its pass,
// both with the pair's time: they are measured together).
PresetFile PresetsOf(const TuneSummary& s, const std::string& braid_version, const std::string& date);

// ISO 8601 UTC, to the second: "2026-11-21T22:00:00Z".
std::string NowIso8601();

}  // namespace braid
