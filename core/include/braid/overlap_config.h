// The knobs of one overlap plan and the rules that make a combination valid.
// An invalid combination is rejected with a message naming the knob and the
// rule; it is never run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

// kIso (layer workloads only, sequence parallelism off): the sequence is cut
// into `chunks` parts (`splits` weights allowed); each part runs the whole op
// chain, and part i+1's compute overlaps part i's all-reduces.
// kFused (ag_gemm, gemm_rs and layers of them): one persistent kernel per
// rank in which `comm_sms` SMs move tiles to peers and the rest compute GEMM
// tiles, with per-tile ready flags (no chunks: the tiles are the unit).
// comm_sms 0 = the backend default (sim: the topology's NCCL channel count);
// it must stay below the GPU's SM count. gemm_ar is refused.
// kBulk and kExternal (training layers only, the backward of a linear):
// bulk — a column-parallel dgrad's reduce-scatter runs beside its wgrad GEMM
// and the wgrad's all-gather beside the dgrad GEMM (two independent
// branches); external — a row-parallel wgrad's GEMM is fed slice by slice by
// its dgrad's ring exchange. TransformerEngine's `bulk` and `external`.
// kDirect (ag_gemm, gemm_rs and layers of them): the collective as P−1
// transfers straight between each pair of ranks (step s: send to r+s,
// receive from r−s), nothing passed on; `chunks` sub-chunks per transfer, as
// for ring. TE's ring_exchange reduce-scatter and async-TP's pattern: on an
// NVSwitch a reduce-scatter's partials each travel once and wait for no
// add on the way. gemm_ar is refused.
// kA2a and kA2aDirect (ag_gemm, gemm_rs; single ops only): DeepSpeed-Ulysses
// sequence parallelism, where every rank holds the whole (replicated) weight
// B and the all-to-all moves activations instead of gathering A or
// reduce-scattering partials. ag_gemm: rank r multiplies its rows of A by
// every column block j of B and sends block j to rank j (the all-to-all
// after the QKV projection); gemm_rs: rank r sends A[rows q, its K shard] to
// each q and sums A[rows r, K shard j] · B[K shard j] over j (the
// all-to-all before the out-projection). Each rank ends with ag_gemm's or
// gemm_rs's output window. a2a is the baseline: every GEMM, then the whole
// all-to-all (ag_gemm), or the whole all-to-all, then the GEMMs (gemm_rs).
// a2a_direct decomposes the all-to-all as direct does (step s: to r+s, from
// r−s), each transfer overlapped with a GEMM; `chunks` sub-chunks per
// transfer. gemm_ar is refused (core/src/ulysses_planner.cc).
enum class Algorithm {
  kSerial,
  kChunked,
  kRing,
  kBidirRing,
  kIso,
  kFused,
  kBulk,
  kExternal,
  kDirect,
  kA2a,
  kA2aDirect,
};

enum class CommEngine { kSm, kCopyEngine };

std::string_view AlgorithmName(Algorithm a);
Result<Algorithm> ParseAlgorithm(std::string_view name);
// ring, bidir_ring, direct, a2a and a2a_direct: the collective as
// point-to-point transfers of rank blocks, so M splits into P blocks and the
// comm only moves data.
bool IsPeerToPeer(Algorithm a);
// a2a and a2a_direct: Ulysses all-to-alls, whose B is replicated on every
// rank (a different sharding from every other algorithm's).
bool IsUlysses(Algorithm a);
// Whether `op`'s transfers under `a` carry rows of its A (an all-gather's
// blocks, a Ulysses gemm_rs's activations) rather than GEMM results
// (partial sums, a Ulysses ag_gemm's finished products). It decides the
// default comm dtype of an FP8 GEMM: its input format for rows of A, the
// output dtype for results.
bool CommMovesA(Op op, Algorithm a);
std::string_view CommEngineName(CommEngine e);
Result<CommEngine> ParseCommEngine(std::string_view name);

struct OverlapConfig {
  Algorithm algorithm = Algorithm::kSerial;
  // chunked: number of data slices; ring / bidir_ring / direct / a2a_direct:
  // sub-chunks per step; iso: sequence parts.
  int chunks = 1;
  // Optional uneven split weights for `chunked` and `iso` (one per chunk, > 0). Empty
  // means even slices, which then must divide the rows exactly.
  std::vector<int> splits;
  int comm_lanes = 1;  // comm streams (lanes besides the compute lane)
  int comm_sms = 0;    // SMs / NCCL channels for comm; 0 = backend default
  CommEngine comm_engine = CommEngine::kSm;
  bool comm_high_priority = true;  // comm lanes get the higher stream priority
  // What an FP8 GEMM's communication moves; unset = the workload's default
  // (Workload::DefaultCommDType: all-gathers FP8, reductions bf16, as
  // TransformerEngine does). Set, every transfer of every GEMM moves it: the
  // output dtype (bf16: gather bf16, cast after) or the input's FP8 format
  // (reduce-scatter partials in FP8, TransformerEngine's FP8 reduce-scatter),
  // which only ring and bidir_ring can reduce: each step adds the arriving FP8
  // partials into a wider buffer, where a collective would round every hop's
  // sum to FP8. A precision choice, not a speed knob: the tuner keeps it.
  std::optional<DType> comm_dtype;
  // The GEMM launched on the SMs its comm kernels leave (sm_count −
  // comm_sms, the backend default where comm_sms is 0) for its whole run,
  // as TransformerEngine's `set_sm_margin` launches cuBLAS with
  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET; off, the GEMM takes every SM and
  // loses those a comm kernel holds only while it runs. Not with serial
  // (no comm beside the GEMM) or fused (its kernel splits its own SMs).
  bool sm_margin = false;
  // bulk only (a column-parallel layer's dgrad + wgrad pair): the SMs of the
  // reduce-scatter beside the wgrad GEMM (TE's `<layer>_wgrad.num_sm`), where
  // comm_sms is the all-gather's beside the dgrad GEMM (`<layer>_dgrad
  // .num_sm`); 0 = comm_sms. What the tuner varies for the pair; a wgrad op
  // with a config of its own takes its own comm_sms instead.
  int wgrad_comm_sms = 0;

  // Checks the knobs against each other and against the workload's shapes.
  // iso is refused here: it applies to layer workloads only (BuildLayerPlan).
  Status Validate(const Workload& w) const;
  // The knobs that do not depend on a workload: chunks, streams, comm SMs.
  Status ValidateKnobs() const;
  std::string Describe() const;  // "ring chunks=2 streams=2"

  friend bool operator==(const OverlapConfig&, const OverlapConfig&) = default;
};

// What `w`'s communication moves under `c` by default: w.DefaultCommDType()
// for the tensor-parallel algorithms; for a2a and a2a_direct the input dtype
// where it moves rows of A and the output dtype where it moves products
// (CommMovesA).
DType DefaultCommDType(const Workload& w, Algorithm a);
// What `w`'s communication moves under `c`: c.comm_dtype when set, else
// DefaultCommDType(w, c.algorithm).
DType CommDType(const Workload& w, const OverlapConfig& c);
// Whether `c.comm_dtype` applies to `w` under algorithm `a`: it must be
// w.dtype or w.OutDType() of an FP8 GEMM, an FP8 reduction needs ring or
// bidir_ring (gemm_ar none), and a2a's ag_gemm products stay in the output
// dtype. The message names the rule and what is allowed.
Status CheckCommDType(const Workload& w, const OverlapConfig& c, Algorithm a);
// Parses a --comm-dtype value: "auto" (unset) or a dtype name.
Result<std::optional<DType>> ParseCommDType(std::string_view name);

// Parses "1,2,1" into weights; rejects empty entries and non-positive values.
Result<std::vector<int>> ParseSplits(std::string_view text);

}  // namespace braid
