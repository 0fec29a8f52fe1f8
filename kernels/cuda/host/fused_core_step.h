// The fused steps on the GEMM core (FusedEngine::kCore), ag_gemm: every
// peer's block of A is pulled by the copy engines on a stream of the step's
// own, in the order the core hands out its tiles (arrival step s brings
// block r+s, gemm/tile_arrival_order.h), each copy followed by a stream
// memory write raising that step's flag; one launch of the GEMM core on the
// step's lane hands out tiles by arrival and loads a tile's rows of A only
// once their step's flag holds the iteration's epoch (gemm/arrival_wait.h).
// Why copy engines: the core keeps every SM for the GEMM, and a pull costs
// no SM at all (the copy engines' NVLink rate is what the sim's ce model
// already prices). A flag that never comes up ends in the kernel's timeout:
// it writes the step into a host-mapped record and traps, and the host turns
// the record into one line.
//
// gemm_rs: the core's epilogue sends each finished tile of the partial
// product to its owner's receive buffer (peer pointers, one slot per
// source) and raises the owner's counter of that tile (gemm/
// scatter_epilogue.h), tiles handed out in the ring's stagger (the next
// rank's block first, the own block last). The owner's reduce runs on the
// step's own stream on `comm_sms` CTAs beside the GEMM, whose persistent
// grid leaves those SMs free, and sums each tile of its block as soon as
// every source's partial arrived (gemm/partial_reduce.h): no add kernel after
// the GEMM. Its timeout names the tile.
//
// FP8 E4M3 (sm_90a only): the operands as the backend's FP8 cuBLASLt steps
// hold them (buffer_dtypes.h): A one byte per element, so ag_gemm's pulls
// move rows of K bytes; B stored as Bᵀ (N × K); the per-tensor
// dequantization scales in the launch (CoreGemmLaunch::scales), applied by
// the epilogue before it stores or scatters; C, gemm_rs's partials and its
// reduce in bf16.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "braid/core_schedule.h"
#include "braid/gemm_core_api.h"
#include "fused_step.h"

namespace braid::cuda {

// CoreStepState: rank_state.h.

// The GEMM core's plan for fused step `s` on this GPU, or Invalid naming the
// constraint it breaks: an fp32 plan, a `comm_dtype` other than what the
// core moves (ag_gemm: A's type; gemm_rs: the output's), more than 8
// ranks, a GPU without a core kernel, gemm_rs's reduce CTAs leaving no SM
// for the GEMM, every refusal of PlanGemm (FP8 off sm_90a, E5M2, K or a
// leading dimension off 16 bytes), and gemm_rs's tile rules
// (ScatterTablesFor: M/P a multiple of the tile's rows).
Result<gemm::GemmPlan> PlanCoreStep(const Plan& plan, const RankPlan& rp, const Step& s, const FusedSettings& f);

// Every rank's schedule of step `s` (planned by PlanCoreStep), proved
// together (braid/core_schedule_check.h): Internal when the proof fails.
Result<std::vector<fused::CoreRankSchedule>> ProvedCoreSchedules(const Plan& plan, const Step& s,
                                                                 const gemm::GemmPlan& planned);

// What the run's notes say the core did for `plan`'s fused steps, as the
// set-up issues them: ag_gemm's pulls by the pull kernel's CTAs or by copy
// engines (`comm_engine`), gemm_rs's partials by the epilogue's peer stores
// whatever `comm_engine` says, each reduced beside the GEMM. Only the ops
// the plan fuses are named.
std::string CoreStepsNote(const Plan& plan, int sms_per_rank);

// Collective over the ranks (it exchanges A's addresses).
Status SetUpCoreSteps(RankState& st, const FusedSettings& f, const DeviceAlloc& alloc, PeerMemory& peers);
Status IssueCore(RankState& st, const Step& s, GpuStream lane, uint32_t epoch);
// Loads the core's kernel and sets up the copy streams before the first
// iteration (PrimeKernels, step_issue.h: CUDA's lazy loading waits for the
// device to drain): one plain GEMM per step on its lane, a copy and a flag
// write on its copy stream, all on scratch or the step's own buffers.
Status PrimeCoreSteps(RankState& st, DevPtr copy_from, DevPtr copy_to, DevPtr flag);
// The copy streams, which the wait for an idle rank must include.
std::vector<GpuStream> CoreStreams(const RankState& st);
// The words every timeout line of CheckCoreTimeouts holds.
inline constexpr const char* kCoreTimeoutWords = "the GEMM core's ";
// After traced iteration `iteration` (0-based, timed) has drained: every
// core step's stamps per group of tiles, appended to st.tile_groups.
Status ReadTileGroups(RankState& st, int iteration);
// After a failed wait: the first core step whose kernel recorded a timeout,
// as one line; Ok when none did.
Status CheckCoreTimeouts(RankState& st, int iteration);
void TearDownCoreSteps(RankState& st);

}  // namespace braid::cuda
