// A plan: per rank, a DAG of typed steps on lanes with explicit
// dependencies. Backend independent: the sim, cpu and cuda backends all run
// the same Plan. Within a lane, steps run in the order they appear (a lane is
// a stream); across lanes only `deps` order them; across ranks only a
// send/recv pair (same `match`) or a collective (same `match`) does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/event.h"
#include "braid/overlap_config.h"
#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

using BufferId = int;

enum class Matrix { kA, kB };

// Where a rank's input buffer is filled from: a window of the global A or B,
// written at row `dst_row` of the buffer.
struct InputWindow {
  Matrix matrix = Matrix::kA;
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  int64_t dst_row = 0;
};

enum class BufferRole { kInput, kOutput, kWorkspace };

struct BufferDecl {
  std::string name;
  int64_t rows = 0, cols = 0;  // row-major, element type = the workload dtype
  BufferRole role = BufferRole::kWorkspace;
  InputWindow input;  // meaningful for kInput
  int op = 0;         // layer plans: the op (Plan::ops index) whose A / B `input` names
};

// A set of rows of one buffer: `pieces` runs of `rows` rows each, piece p
// starting at row + p·stride. Always the full width of the buffer.
struct Region {
  BufferId buffer = -1;
  int64_t row = 0;
  int64_t rows = 0;
  int pieces = 1;
  int64_t stride = 0;

  int64_t total_rows() const { return rows * pieces; }
  int64_t piece_row(int p) const { return row + int64_t(p) * stride; }
  static Region Rows(BufferId b, int64_t row, int64_t rows) { return {b, row, rows, 1, 0}; }
};

enum class StepKind {
  kGemm,        // c = a · (whole buffer b.buffer)
  kSend,        // a → rank `peer`
  kRecv,        // c ← rank `peer`
  kReduce,      // c = a + b (elementwise)
  kCopy,        // c = a
  kCollective,  // a (send side) → c (receive side), over all P ranks
  kCompute,     // a compute kernel with flops and bytes but no buffers (attention)
  // The fused kernel (Algorithm::kFused), one per rank, matched across ranks
  // like a collective (same `match`); `collective` names its comm pattern.
  //   all_gather (ag_gemm): a = the rank's own block of A (n rows), c = the
  //     whole output (P·n rows) = (A gathered from every rank) · b.
  //   reduce_scatter (gemm_rs): a = the rank's A shard (P·n rows), c = the
  //     rank's block (n rows) = Σ_q rank q's a piece r · its b.
  // flops: the rank's GEMM; bytes: what the rank sends ((P−1)/P of the
  // gathered A, or of the partial C).
  kFused,
};

enum class CollectiveKind {
  kAllGather,      // a: n rows; c: P pieces of n rows, piece q ← rank q's a
  kReduceScatter,  // a: P pieces of n rows; c: n rows = Σ_q rank q's piece r
  kAllReduce,      // c = Σ_q rank q's a (same shape)
};

std::string_view StepKindName(StepKind k);
// The kind of event a step becomes on every backend (a fused kernel is
// compute; the sim backend also emits its comm part separately).
EventKind EventKindOf(StepKind kind);
std::string_view CollectiveName(CollectiveKind k);
// "all_reduce" | "all_gather" | "reduce_scatter" (CollectiveName's names)
Result<CollectiveKind> ParseCollectiveKind(std::string_view name);

// Fields in the order of use: the plan graph reads the first 64 bytes of
// every step and the sim's per-evaluation load the first 160, so they come
// before the name (braid_sim_bench: the plan's cache lines were its stalls).
struct Step {
  int id = 0;  // index in RankPlan::steps
  StepKind kind = StepKind::kGemm;
  CollectiveKind collective = CollectiveKind::kAllGather;
  int lane = 0;
  std::vector<int> deps;  // ids of earlier steps of the same rank
  int peer = -1;          // send / recv partner rank
  int chunk = -1;         // chunk or sub-chunk index
  int64_t match = -1;     // pairs a send with its recv; numbers a collective
  int64_t bytes = 0;      // bytes moved (dtype-sized), or touched for reduce / copy
  double flops = 0;       // GEMM FLOPs (2·m·n·k); adds for reduce; a compute step's FLOPs
  int ring_step = -1;     // ring step s
  int op = 0;             // layer plans: the op (Plan::ops index) the step belongs to
  // kGemm only: c += a·b rather than c = a·b (cuBLAS's beta = 1: the sum is
  // taken in the GEMM's epilogue, so no add kernel runs after it). A Ulysses
  // gemm_rs sums its peers' K shards so, as one GEMM over the gathered K would.
  bool accumulate = false;
  Region a, b, c;
  std::string name;
};

enum class LaneKind { kCompute, kComm };

struct Lane {
  std::string name;
  LaneKind kind = LaneKind::kCompute;
  int priority = 0;  // higher runs first where the backend can prioritise
};

// The window of the global C that a rank's output buffer holds at the end.
struct OutputWindow {
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

// One GEMM op's output on a rank (layer plans have one per GEMM op and part).
struct OpOutput {
  int op = 0;  // Plan::ops index
  BufferId buffer = -1;
  OutputWindow window;  // of that op's global C
};

struct RankPlan {
  std::vector<BufferDecl> buffers;
  std::vector<Step> steps;
  BufferId output = -1;  // single-op plans; layer plans: the first GEMM op's output
  OutputWindow output_window;
  // Layer plans: every GEMM op's output. Empty for single-op plans, whose
  // only output is {0, output, output_window}: use Outputs().
  std::vector<OpOutput> outputs;

  std::vector<OpOutput> Outputs() const;
};

// What a backend runs one op's kernels with: its config's comm knobs,
// except in a bulk pair, where each collective runs beside the other op's
// GEMM and takes that op's budget (TE: `<layer>_dgrad.num_sm` is the
// all-gather's beside the dgrad GEMM, `<layer>_wgrad.num_sm` the
// reduce-scatter's beside the wgrad GEMM).
struct OpKnobs {
  int comm_sms = 0;  // its comm kernels' SMs (0 = the backend's default)
  CommEngine comm_engine = CommEngine::kSm;
  // Its GEMMs run on sm_count − margin_sms SMs throughout
  // (OverlapConfig::sm_margin); margin_sms 0 = the backend's default comm
  // SM count.
  bool sm_margin = false;
  int margin_sms = 0;

  friend bool operator==(const OpKnobs&, const OpKnobs&) = default;
};

// An op's knobs under `c` when nothing is paired with it.
OpKnobs KnobsOf(const OverlapConfig& c);

// Whether a step (or its event) named `step` is in op `op`'s scope: a layer
// plan names an op's steps after it, its name and a dot first ("fc2.dgrad.gemm"
// is a step of "fc2.dgrad"). With several such ops the longest is the step's.
bool InOpScope(std::string_view step, std::string_view op);

// One op of a layer plan. A GEMM op has its own global A and B (layer plans
// chain ops by dependencies, not by data: each op multiplies its own
// inputs, which a backend may fill from one block's tensors, as the cpu
// backend's --verify does). `local`: a plain column-parallel GEMM with no
// communication (every rank holds all of A; ag_gemm's semantics without the
// gather).
// Attention is a compute op: its steps are kCompute and it has no buffers.
struct PlanOp {
  std::string name;    // "qkv", "attention", "out_proj", "fc1", "fc2" (+ ".partN" for iso)
  Workload workload;   // GEMM ops: the full GEMM of this op (and part)
  bool gemm = true;    // false: a compute op (attention)
  bool local = false;  // GEMM without communication
  int part = 0;        // iso: the sequence part
  // The method this op was planned with: Plan::config's algorithm, except in
  // train plans, where each GEMM has its own (serial, bulk, external, ...).
  Algorithm method = Algorithm::kSerial;
  // What its transfers move: CommDType of its workload and the config it was
  // planned with (a train plan's GEMMs each have their own).
  DType comm_dtype = DType::kBf16;
  // The config it was planned with (LayerOp::config where set, else the
  // run's or what a train plan derives; bulk and external as their methods
  // say) and the knobs its kernels run with.
  OverlapConfig config;
  OpKnobs knobs;
};

struct Plan {
  Workload workload;  // single-op plans: the op; layer plans: the first GEMM op (dtype, P)
  OverlapConfig config;
  std::vector<Lane> lanes;  // the same lane set on every rank
  std::vector<RankPlan> ranks;
  std::vector<PlanOp> ops;  // layer plans only; empty for a single-op plan

  int tp() const { return int(ranks.size()); }
  size_t total_steps() const;
  bool is_layer() const { return !ops.empty(); }
  // How many ops the op_* accessors take: a single-op plan has one.
  int op_count() const { return ops.empty() ? 1 : int(ops.size()); }
  // The config op i was planned with: `config` for a single-op plan.
  const OverlapConfig& op_config(int i) const { return ops.empty() ? config : ops[size_t(i)].config; }
  // The workload of op i: `workload` for a single-op plan.
  const Workload& op_workload(int i) const { return ops.empty() ? workload : ops[size_t(i)].workload; }
  // True when op i's GEMM yields whole products (ag_gemm, local), false for partial sums.
  bool op_products(int i) const;
  // What op i's transfers move: CommDType(workload, config) for a single-op
  // plan, PlanOp::comm_dtype for a layer plan. Backends size and type every
  // transfer by it.
  DType op_comm_dtype(int i) const;
  // The knobs op i's kernels run with: KnobsOf(config) for a single-op
  // plan, PlanOp::knobs for a layer plan.
  OpKnobs op_knobs(int i) const;
};

}  // namespace braid
