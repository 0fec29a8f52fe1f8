#include "braid/cuda_backend.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <span>
#include <system_error>
#include <thread>

#include "braid/bootstrap.h"
#include "braid/cpu_verify.h"
#include "braid/cuda_step_events.h"
#include "braid/fp8.h"
#include "braid/plan_check.h"
#include "braid/run_options_check.h"
#include "braid/tile_group_events.h"
#include "buffer_dtypes.h"
#include "dtype_convert.h"
#include "fused_core_step.h"
#include "fused_step.h"
#include "op_knobs.h"
#include "process_run.h"
#include "rank_runner.h"
#include "wedge_guard.h"

namespace braid {

Status CheckCudaBackendOptions(const CudaBackendOptions& o) {
  if (!std::isfinite(o.timeout_s) || o.timeout_s <= 0 || o.timeout_s > 86400) {
    return Status::Invalid("`timeout_s` must be a number of seconds above 0 and at most 86400");
  }
  if (!std::isfinite(o.wedge_deadline_s) || o.wedge_deadline_s < 0) {
    return Status::Invalid("`wedge_deadline_s` must be a number of seconds, 0 or more");
  }
  return Status::Ok();
}

double CudaVerifyTolerance(DType dtype, int64_t k, int p, bool tf32) {
  const double u_acc = tf32 && dtype == DType::kFp32 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
  // FP8 inputs: the reference multiplies the same dequantized values, so
  // what differs is the bf16 output (Workload::OutDType) and sum order.
  const double u_out = dtype == DType::kBf16 || IsFp8(dtype) ? std::ldexp(1.0, -8)
                       : dtype == DType::kFp16               ? std::ldexp(1.0, -11)
                                                             : std::ldexp(1.0, -24);
  return 4 * u_acc * std::sqrt(double(std::max<int64_t>(k, 1))) + 2 * (p + 1) * u_out;
}

namespace {

using cuda::Transport;

bool Moves(const Plan& plan) {
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv || s.kind == StepKind::kCollective) return true;
    }
  }
  return false;
}

std::string TwoNames(const std::string& a, const std::string& b) { return "'" + a + "' and '" + b + "'"; }

std::string Upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A topology names GPUs "h100-sxm"; CUDA says "NVIDIA H100 80GB HBM3": the
// model (before the first '-') must appear in the device's name.
bool GpuNamesMatch(const std::string& topology_gpu, const std::string& device) {
  const std::string model = Upper(topology_gpu.substr(0, topology_gpu.find('-')));
  return Upper(device).find(model) != std::string::npos;
}

}  // namespace

namespace cuda {

Status CheckDevices(const Plan& plan, const CudaBackendOptions& o, CudaApi& api, RunOutput& out, DeviceProps& props,
                    int device) {
  auto count = api.DeviceCount();
  if (!count.ok()) return Status::Unavailable("cuda backend: " + count.status().message());
  if (*count < 1) return Status::Unavailable("cuda backend: no CUDA device found");
  const int p = plan.tp();
  const bool all_here = device < 0;  // every rank in this process
  if (all_here && !o.loopback && *count < p) {
    return Status::Invalid("`tp` " + std::to_string(p) + " needs " + std::to_string(p) + " GPUs but " +
                           std::to_string(*count) + " found (`loopback` runs every rank on one GPU)");
  }
  if (!all_here && device >= *count) {
    return Status::Invalid("this host has " + std::to_string(*count) + " GPUs but at least " +
                           std::to_string(device + 1) + " MPI processes of the job (one GPU each)");
  }
  auto first = api.Props(std::max(device, 0));
  if (!first.ok()) return Status::Unavailable("cuda backend: " + first.status().message());
  props = *first;
  if (plan.workload.dtype == DType::kBf16 && props.cc_major < 8) {
    return Status::Invalid("bf16 needs compute capability 8.0 or newer; " + props.name + " is " +
                           std::to_string(props.cc_major) + "." + std::to_string(props.cc_minor));
  }
  if (IsFp8(plan.workload.dtype) && props.cc_major * 10 + props.cc_minor < 89) {
    return Status::Invalid(std::string(DTypeName(plan.workload.dtype)) +
                           " needs FP8 tensor cores (compute capability 8.9 or newer); " + props.name + " is " +
                           std::to_string(props.cc_major) + "." + std::to_string(props.cc_minor));
  }
  if (plan.workload.dtype == DType::kFp8E5m2) {
    out.notes.push_back("fp8_e5m2: A and what moves with it in E5M2, B in E4M3 (cuBLASLt has no E5M2 x E5M2 matmul)");
  }
  if (plan.config.comm_sms >= props.sm_count) {
    return Status::Invalid("`comm_sms` " + std::to_string(plan.config.comm_sms) + " leaves no SM for the GEMM on " +
                           props.name + " (" + std::to_string(props.sm_count) + " SMs)");
  }
  if (!o.expected_gpu.empty() && !GpuNamesMatch(o.expected_gpu, props.name)) {
    out.notes.push_back("the topology names GPU " + TwoNames(o.expected_gpu, props.name) +
                        " was found; the run is recorded on the device found");
  }
  out.notes.push_back("device: " + props.name + " (" + std::to_string(props.sm_count) + " SMs, compute " +
                      std::to_string(props.cc_major) + "." + std::to_string(props.cc_minor) + ")");
  const bool ce = plan.config.comm_engine == CommEngine::kCopyEngine;
  if (ce && !o.loopback && all_here) {
    for (int a = 0; a < p; ++a) {
      for (int b = 0; b < p; ++b) {
        if (a == b) continue;
        auto ok = api.CanAccessPeer(a, b);
        if (!ok.ok()) return Status::Unavailable("cuda backend: " + ok.status().message());
        if (!*ok) {
          return Status::Invalid("`comm_engine` ce needs peer access, and GPU " + std::to_string(a) +
                                 " cannot map GPU " + std::to_string(b) + "'s memory");
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace cuda

namespace {

Status CheckPlan(const Plan& plan) { return CheckPlanStructure(plan); }

// One rank's kernel holds every SM of its GPU, or its share of the one GPU in loopback.
int FusedSmsPerRank(const Plan& plan, const CudaBackendOptions& o, const cuda::DeviceProps& props) {
  return o.loopback ? props.sm_count / plan.tp() : props.sm_count;
}

}  // namespace

namespace cuda {

namespace {

// Rounds `m` to `dtype` (FP8: quantized with a per-tensor scale — `fixed`
// where set, else its amax one — which it returns; else 1).
float RoundTo(DType dtype, HostMatrix& m, const std::optional<double>& fixed) {
  if (IsFp8(dtype)) {
    const std::optional<float> scale = fixed.has_value() ? std::optional<float>(float(*fixed)) : std::nullopt;
    return RoundTensorToFp8(Fp8FormatOf(dtype), std::span<float>(m.data), scale);
  }
  for (float& v : m.data) {
    uint8_t buf[4];
    cuda::StoreOne(dtype, v, buf, 0);
    v = cuda::LoadOne(dtype, buf, 0);
  }
  return 1;
}

}  // namespace

std::string Fp8ScalesNote(const Plan& plan, const RunOptions& options) {
  if (!IsFp8(plan.workload.dtype)) return {};
  auto of = [](const std::optional<double>& fixed) {
    if (!fixed.has_value()) return std::string("from each tensor's amax");
    char text[40];
    std::snprintf(text, sizeof text, "fixed %g", *fixed);
    return std::string(text);
  };
  return "FP8 scales: A " + of(options.fp8_scale_a) + ", B " + of(options.fp8_scale_b);
}

void MakeInputs(const Plan& plan, const RunOptions& options, std::vector<HostMatrix>& a, std::vector<HostMatrix>& b,
                std::vector<float>& scales) {
  const uint64_t seed = options.seed;
  const int ops = plan.op_count();
  scales.assign(2 * size_t(ops), 1.0f);
  for (int i = 0; i < ops; ++i) {
    if (plan.is_layer() && !plan.ops[size_t(i)].gemm) {
      a.emplace_back();
      b.emplace_back();
      continue;
    }
    const Workload& w = plan.op_workload(i);
    a.push_back(RandomMatrix(w.m, w.k, seed, 2 * uint64_t(i)));
    b.push_back(RandomMatrix(w.k, w.n, seed, 2 * uint64_t(i) + 1));
    scales[2 * size_t(i)] = RoundTo(w.dtype, a.back(), options.fp8_scale_a);
    scales[2 * size_t(i) + 1] =
        RoundTo(IsFp8(w.dtype) ? cuda::Fp8WeightDType(w.dtype) : w.dtype, b.back(), options.fp8_scale_b);
  }
}

}  // namespace cuda

namespace {

VerifyResult Verify(const Plan& plan, const std::vector<HostMatrix>& a, const std::vector<HostMatrix>& b,
                    const std::vector<cuda::RankResult>& ranks, bool tf32) {
  VerifyResult worst;
  for (size_t op = 0; op < a.size(); ++op) {
    if (a[op].rows == 0) continue;
    const HostMatrix ref = ReferenceGemm(a[op], b[op]);
    std::vector<RankOutput> outputs;
    for (int r = 0; r < plan.tp(); ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      const std::vector<OpOutput> outs = rp.Outputs();
      for (size_t i = 0; i < outs.size(); ++i) {
        if (outs[i].op != int(op)) continue;
        outputs.push_back(
            {outs[i].window, ranks[size_t(r)].outputs[i].data(), rp.buffers[size_t(outs[i].buffer)].cols});
      }
    }
    const Workload& w = plan.op_workload(int(op));
    const VerifyResult v = VerifyOutputs(ref, outputs, CudaVerifyTolerance(w.dtype, w.k, plan.tp(), tf32));
    const bool ok = v.ok && (!worst.ran || worst.ok);
    if (!worst.ran || !(v.max_rel_error <= worst.max_rel_error)) worst = v;
    worst.ok = ok;
  }
  return worst;
}

Result<RunOutput> RunChecked(const Plan& plan, const RunOptions& options, const CudaBackendOptions& o,
                             const CudaSeams& seams) {
  RunOutput out;
  cuda::DeviceProps props;
  BRAID_RETURN_IF_ERROR(cuda::CheckDevices(plan, o, *seams.cuda, out, props, -1));
  const int p = plan.tp();
  const bool fused = cuda::HasFusedSteps(plan);
  if (fused) {
    if (!seams.fused) return Status::Internal("cuda backend: the fused kernel seam is missing");
    if (o.fused_engine == FusedEngine::kCore && !seams.core) {
      return Status::Internal("cuda backend: the GEMM core seam is missing");
    }
    cuda::FusedSettings f;
    f.sms_per_rank = FusedSmsPerRank(plan, o, props);
    f.comm_sms = plan.config.comm_sms;
    f.never_set_rank = o.fused_never_set_rank;
    f.engine = o.fused_engine;
    f.props = props;
    BRAID_RETURN_IF_ERROR(cuda::CheckFusedPlan(plan, f));
  }
  Transport transport = Transport::kNone;
  if (p > 1 && Moves(plan)) {
    transport =
        (o.loopback || plan.config.comm_engine == CommEngine::kCopyEngine) ? Transport::kFlags : Transport::kNccl;
  }
  std::vector<HostMatrix> a, b;
  std::vector<float> scales;
  cuda::MakeInputs(plan, options, a, b, scales);
  if (std::string note = cuda::Fp8ScalesNote(plan, options); !note.empty()) out.notes.push_back(std::move(note));
  std::vector<cuda::TransferLayout> layouts;
  for (const RankPlan& rp : plan.ranks) layouts.push_back(cuda::LayoutTransfers(rp, p));

  const auto timeout = std::chrono::milliseconds(int64_t(o.timeout_s * 1000) + 1000);
  cuda::InProcessGroup group(p, timeout);
  std::atomic<bool> failed{false};
  const int comm_sms = plan.config.comm_sms;
  // In loopback every rank's GEMMs share the one GPU: their targets are of its SMs too.
  BRAID_ASSIGN_OR_RETURN(auto targets, cuda::SmCountTargets(plan, props.sm_count));
  for (std::string& note : cuda::PerOpKnobNotes(plan)) out.notes.push_back(std::move(note));
  std::vector<cuda::RankJob> jobs(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    cuda::RankJob& j = jobs[size_t(r)];
    j = {&plan,     r,        o.loopback ? 0 : r,
         transport, &layouts, &a,
         &b,        &seams,   &group.Member(r),
         &options,  &o,       targets,
         comm_sms,  &failed,  FusedSmsPerRank(plan, o, props),
         r == 0};
  }
  std::vector<cuda::RankProgress> progress(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    jobs[size_t(r)].progress = &progress[size_t(r)];
    jobs[size_t(r)].scales = &scales;
  }
  const double deadline_s = cuda::WedgeDeadline(o, options);
  std::vector<cuda::RankResult> results(static_cast<size_t>(p));
  std::vector<std::thread> threads;
  Status started = Status::Ok();
  {
    cuda::WedgeGuard guard(
        std::chrono::duration<double>(deadline_s), [&] { return cuda::DescribeWedge(plan, 0, progress, deadline_s); },
        cuda::EndWedgedProcess,
        [&] { return cuda::DescribeStall(plan, 0, progress, cuda::StallLimit(o), cuda::SteadyNowNs()); });
    try {
      for (int r = 0; r < p; ++r) {
        threads.emplace_back([&, r] { results[size_t(r)] = cuda::RunRank(jobs[size_t(r)]); });
      }
    } catch (const std::system_error& e) {
      started = Status::Internal(std::string("cuda backend: cannot start a rank thread: ") + e.what());
      failed.store(true);
      group.Member(0).Abort(started.message());  // the started ranks stop at their next wait
    }
    for (std::thread& t : threads) t.join();
  }
  BRAID_RETURN_IF_ERROR(started);
  // The first failure is the cause; the others say they stopped because of
  // it. In loopback one GEMM core's trap fails every rank's context, so a
  // rank whose own kernel timed out (its record's line) is the cause first.
  for (const cuda::RankResult& r : results) {
    if (!r.status.ok() && r.status.message().find(cuda::kCoreTimeoutWords) != std::string::npos) return r.status;
  }
  for (const cuda::RankResult& r : results) {
    if (!r.status.ok() && r.status.message().find("another rank failed") == std::string::npos &&
        r.status.message().find("run aborted") == std::string::npos) {
      return r.status;
    }
  }
  for (const cuda::RankResult& r : results) BRAID_RETURN_IF_ERROR(r.status);

  out.iteration_ns = results[0].iteration_ns;
  if (options.trace) {
    const std::vector<Event> records = seams.tracer->TakeEvents();
    out.events = cuda::StepEvents(plan, records);
    const size_t expected = plan.total_steps() * size_t(options.iters);
    const size_t steps = size_t(std::count_if(out.events.begin(), out.events.end(), cuda::IsStepEvent));
    if (steps < expected) {
      out.notes.push_back("tracer: " + std::to_string(expected - steps) + " of " + std::to_string(expected) +
                          " step executions have no GPU activity record");
    }
    std::vector<cuda::TileGroupReading> stamps;
    for (const cuda::RankResult& r : results) stamps.insert(stamps.end(), r.tile_groups.begin(), r.tile_groups.end());
    cuda::AddTileGroupEvents(plan, records, stamps, out.events);
  }
  out.compute_dtype = std::string(DTypeName(plan.workload.dtype));
  if (plan.workload.dtype == DType::kFp32 && o.tf32) out.compute_dtype = "tf32";
  out.settings.emplace_back("loopback", o.loopback ? 1 : 0);
  out.settings.emplace_back("timeout_s", o.timeout_s);
  if (!plan.is_layer() && targets[0] > 0) out.settings.emplace_back("gemm_sm_count_target", targets[0]);
  if (fused && o.fused_engine == FusedEngine::kCore) {
    out.notes.push_back(cuda::CoreStepsNote(plan, FusedSmsPerRank(plan, o, props)));
  } else if (fused) {
    out.notes.push_back("fused kernel: " + std::to_string(FusedSmsPerRank(plan, o, props)) +
                        " CTAs per rank, the schedule's tables as proved by tests/cuda/cuda_fused_schedule_test.cc");
  }
  if (transport == Transport::kFlags) {
    out.notes.push_back(o.loopback ? "transfers ran as device copies into the other ranks' inboxes on the one GPU, "
                                     "with stream-ordered flags"
                                   : "transfers ran as copy-engine copies into the peers' NCCL symmetric windows "
                                     "with stream-ordered flags");
  }
  if (options.verify) out.verify = Verify(plan, a, b, results, o.tf32);
  return out;
}

}  // namespace

Result<RunOutput> CudaBackend::Run(const Plan& plan, const RunOptions& options) {
  BRAID_RETURN_IF_ERROR(CheckRunOptions(options));
  BRAID_RETURN_IF_ERROR(CheckCudaBackendOptions(options_));
  BRAID_RETURN_IF_ERROR(CheckPlan(plan));
  if (IsFp8(plan.workload.dtype) && cuda::HasFusedSteps(plan) && options_.fused_engine != FusedEngine::kCore) {
    // Its mma.sync tiles are bf16 / fp16 / fp32; the GEMM core's sm_90a
    // path takes FP8 E4M3 (PlanCoreStep refuses the rest).
    return Status::Invalid("the fused kernel does not run " + std::string(DTypeName(plan.workload.dtype)) +
                           " (bf16, fp16 and fp32 only); run fused FP8 on the GEMM core (--fused-engine core, "
                           "fp8_e4m3 on sm_90a) or pick another `algorithm`");
  }
  BRAID_RETURN_IF_ERROR(cuda::CheckFp8Plan(plan));
  if (!seams_.cuda || !seams_.nccl || !seams_.tracer || !seams_.make_blas) {
    return Status::Internal("cuda backend: a seam is missing");
  }
  try {
    if (world_ != nullptr && world_->world_size() > 1) {
      return cuda::RunAsProcess(plan, options, options_, seams_, *world_);
    }
    return RunChecked(plan, options, options_, seams_);
  } catch (const std::bad_alloc&) {
    return Status::Internal("cuda backend: out of host memory for " + plan.workload.Describe());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cuda backend: ") + e.what());
  }
}

}  // namespace braid
