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
#pragma once

#include <cstdint>
#include <vector>

#include "braid/gemm_core_api.h"
#include "fused_step.h"

namespace braid::cuda {

// CoreStepState: rank_state.h.

// The GEMM core's plan for fused step `s` on this GPU, or Invalid naming the
// constraint it breaks: gemm_rs (not on the core yet), an FP8 or fp32 plan,
// a GPU without a core kernel, and every refusal of PlanGemm.
Result<gemm::GemmPlan> PlanCoreStep(const Plan& plan, const RankPlan& rp, const Step& s, const FusedSettings& f);

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
inline constexpr const char* kCoreTimeoutWords = "the GEMM core's ag_gemm timed out";
// After a failed wait: the first core step whose kernel recorded a timeout,
// as one line; Ok when none did.
Status CheckCoreTimeouts(RankState& st, int iteration);
void TearDownCoreSteps(RankState& st);

}  // namespace braid::cuda
