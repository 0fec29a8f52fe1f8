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
enum class Algorithm { kSerial, kChunked, kRing, kBidirRing, kIso, kFused, kBulk, kExternal, kDirect };

enum class CommEngine { kSm, kCopyEngine };

std::string_view AlgorithmName(Algorithm a);
Result<Algorithm> ParseAlgorithm(std::string_view name);
// ring, bidir_ring and direct: the collective as point-to-point transfers of
// rank blocks, so M splits into P blocks and the comm only moves data.
bool IsPeerToPeer(Algorithm a);
std::string_view CommEngineName(CommEngine e);
Result<CommEngine> ParseCommEngine(std::string_view name);

struct OverlapConfig {
  Algorithm algorithm = Algorithm::kSerial;
  // chunked: number of data slices; ring / bidir_ring / direct: sub-chunks per step;
  // iso: sequence parts.
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

// What `w`'s communication moves under `c`: c.comm_dtype when set, else
// w.DefaultCommDType().
DType CommDType(const Workload& w, const OverlapConfig& c);
// Whether `c.comm_dtype` applies to `w` under algorithm `a`: it must be
// w.dtype or w.OutDType() of an FP8 GEMM, and an FP8 reduction needs ring or
// bidir_ring (gemm_ar none). The message names the rule and what is allowed.
Status CheckCommDType(const Workload& w, const OverlapConfig& c, Algorithm a);
// Parses a --comm-dtype value: "auto" (unset) or a dtype name.
Result<std::optional<DType>> ParseCommDType(std::string_view name);

// Parses "1,2,1" into weights; rejects empty entries and non-positive values.
Result<std::vector<int>> ParseSplits(std::string_view text);

}  // namespace braid
