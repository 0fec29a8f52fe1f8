#include "braid/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include "blas_library.h"
#include "block_inputs.h"
#include "braid/cpu_transport.h"
#include "braid/cpu_verify.h"
#include "braid/host_matrix.h"
#include "braid/plan_check.h"
#include "braid/run_options_check.h"
#include "fp8_inputs.h"
#include "rank_memory.h"
#include "run_inputs.h"
#include "run_plan.h"

namespace braid {

Status CheckCpuBackendOptions(const CpuBackendOptions& o) {
  if (!std::isfinite(o.link_gbps) || o.link_gbps < 0 || !std::isfinite(o.link_latency_us) || o.link_latency_us < 0) {
    return Status::Invalid("link bandwidth and latency must be finite and not negative");
  }
  if (o.link_latency_us > 0 && o.link_gbps == 0) return Status::Invalid("a link latency needs a link bandwidth");
  if (!std::isfinite(o.timeout_s) || !(o.timeout_s > 0)) {
    return Status::Invalid("the cpu backend's timeout must be a finite number of seconds above 0");
  }
  return Status::Ok();
}

namespace {

int HardwareThreads() { return std::max(1, int(std::thread::hardware_concurrency())); }

// Every GEMM op's outputs against its own A·B (verifying a layer, its
// product in the block's reference forward or backward); the worst op decides.
VerifyResult Verify(const Plan& plan, const std::vector<HostMatrix>& a, const std::vector<HostMatrix>& b,
                    const std::vector<cpu::RankMemory>& memory, const std::vector<WireFormat>& wires) {
  cpu::SetBlasThreads(HardwareThreads());  // the reference is outside timing
  VerifyResult worst;
  for (size_t op = 0; op < a.size(); ++op) {
    if (a[op].rows == 0) continue;  // a compute op: nothing to check
    const HostMatrix ref = ReferenceGemm(a[op], b[op]);
    std::vector<RankOutput> outputs;
    for (int r = 0; r < plan.tp(); ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      for (const OpOutput& o : rp.Outputs()) {
        if (o.op != int(op)) continue;
        outputs.push_back({o.window, memory[size_t(r)].data(o.buffer), rp.buffers[size_t(o.buffer)].cols});
      }
    }
    const WireFormat wire = op < wires.size() ? wires[op] : WireFormat{};
    const VerifyResult v = VerifyOutputs(ref, outputs, WireVerifyTolerance(wire, plan.tp()));
    const bool ok = v.ok && (!worst.ran || worst.ok);
    if (!worst.ran || !(v.max_rel_error <= worst.max_rel_error)) worst = v;
    worst.ok = ok;
  }
  return worst;
}

std::unique_ptr<Transport> MakeTransport(const CpuBackend::TransportFactory& factory, int ranks,
                                         const CpuBackendOptions& options) {
  if (factory) return factory(ranks, options);
  return std::make_unique<CpuTransport>(ranks, options.link_gbps, options.link_latency_us);
}

Result<RunOutput> RunChecked(const Plan& plan, const RunOptions& options, const CpuBackendOptions& cpu_options,
                             const CpuBackend::TransportFactory& factory) {
  // One A and B per op (a single-op plan has one op); compute ops have none.
  // Verifying, a layer's are one block's (block_inputs.h): sgemms outside timing.
  cpu::SetBlasThreads(HardwareThreads());
  const cpu::Fp8Scaling scaling = cpu::Fp8ScalingOf(options);
  cpu::RunInputs inputs = cpu::MakeRunInputs(plan, options.seed, options.verify, scaling);
  const std::vector<WireFormat> wires = cpu::RunWireFormats(plan, inputs);
  // Ranks run their own sgemm side by side; one rank may use every core.
  cpu::SetBlasThreads(plan.tp() > 1 ? 1 : HardwareThreads());
  std::vector<HostMatrix>& a = inputs.a;
  std::vector<HostMatrix>& b = inputs.b;
  std::vector<cpu::RankMemory> memory;
  memory.reserve(plan.ranks.size());
  for (const RankPlan& rp : plan.ranks) memory.emplace_back(rp, a, b);
  if (!options.verify) {
    a.clear();
    b.clear();
  }

  const std::unique_ptr<Transport> transport = MakeTransport(factory, plan.tp(), cpu_options);
  if (!transport) return Status::Internal("cpu backend: no transport");
  RunOutput out;
  cpu::RankRange every_rank;
  every_rank.iteration_timeout_s = cpu_options.timeout_s;
  BRAID_RETURN_IF_ERROR(cpu::ExecutePlan(plan, options, memory, *transport, out, every_rank, wires));
  out.compute_dtype = "fp32";
  if (cpu_options.link_gbps > 0) {
    out.settings.emplace_back("link_gbps", cpu_options.link_gbps);
    out.settings.emplace_back("link_latency_us", cpu_options.link_latency_us);
  }
  if (const std::string note = cpu::CpuDTypeNote(plan, wires, scaling); !note.empty()) out.notes.push_back(note);
  for (const Step& s : plan.ranks[0].steps) {
    if (s.kind != StepKind::kCompute) continue;
    out.notes.push_back(
        "compute steps (attention) run as real sgemm work of the same FLOPs on "
        "scratch data, not as attention itself");
    break;
  }
  if (const std::string block = cpu::BlockNote(inputs); !block.empty()) out.notes.push_back(block);
  if (options.verify) out.verify = Verify(plan, a, b, memory, wires);
  return out;
}

}  // namespace

Result<RunOutput> CpuBackend::Run(const Plan& plan, const RunOptions& options) {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(options));
  BRAID_RETURN_IF_ERROR(CheckCpuBackendOptions(options_));
  // A hand-edited or foreign plan could corrupt memory or hang: check it first.
  BRAID_RETURN_IF_ERROR(CheckPlanStructure(plan));
  BRAID_RETURN_IF_ERROR(cpu::LoadBlas());  // timed GEMMs need the library, not Sgemm's plain loop
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kFused) {
        return Status::Invalid("fused runs on the sim backend; the cpu backend has no fused kernel");
      }
    }
  }
  BRAID_RETURN_IF_ERROR(cpu::CheckMemory(cpu::RunBytes(plan, options.verify)));
  try {
    return RunChecked(plan, options, options_, factory_);
  } catch (const std::bad_alloc&) {
    return Status::Internal("cpu backend: out of memory for " + plan.workload.Describe());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cpu backend: ") + e.what());
  }
}

}  // namespace braid
