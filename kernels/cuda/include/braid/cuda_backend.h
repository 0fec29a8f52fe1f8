// The cuda backend: a Plan on CUDA streams. Each lane is a stream (with the
// lane's priority), cross-lane dependencies are events, GEMM steps are
// cuBLASLt matmuls on sub-views, transfers are NCCL send/recv and
// collectives (or, with --comm-engine ce and in loopback, copy-engine copies
// into peer buffers with stream-ordered flags: NCCL symmetric windows between
// GPUs, in one process or across processes; plain buffers in loopback), add
// steps a small kernel; events come from the tracer (CUPTI), tagged per step.
//
// The orchestration is host-only C++ over the seams in `CudaSeams`; the real
// seams exist only where the toolkit was found (MakeRealCudaSeams), the
// checking fakes everywhere (braid/cuda_fakes.h).
//
// Ranks: one thread per rank in this process, each on its own GPU (rank r on
// device r), or all on device 0 in loopback mode. Under mpirun (a Launcher
// of world size > 1): this process is rank r on its local device (local
// rank), NCCL bootstrapped through the launcher, and rank 0 gathers every
// rank's events (aligned to its clock) and the verdict; Run is collective.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "braid/backend.h"
#include "braid/blaslt_api.h"
#include "braid/cuda_api.h"
#include "braid/fused_engine.h"
#include "braid/fused_kernel_api.h"
#include "braid/gemm_core_api.h"
#include "braid/gpu_tracer.h"
#include "braid/launcher.h"
#include "braid/name_table.h"
#include "braid/nccl_api.h"

namespace braid {

// Settings only the cuda backend understands.
struct CudaBackendOptions {
  // All P ranks on device 0: peer buffers are other buffers of the same
  // device and every transfer is a device copy (one GPU checks any plan).
  bool loopback = false;
  // The watchdog: an iteration not finished after this long aborts the
  // communicators and fails naming the step it is stuck at.
  double timeout_s = 60;
  // The topology's GPU name; a different device gets a note, the run goes on.
  std::string expected_gpu;
  bool tf32 = false;  // fp32 GEMMs may use TF32 tensor cores
  // Test hook of the fused kernel's timeout path (env BRAID_FUSED_NEVER_SET=
  // "RANK:FLAG"): that rank's kernel never raises that flag, so its waiters
  // must end in the kernel's timeout error, not a hang. -1: off.
  int fused_never_set_rank = -1;
  int fused_never_set_flag = -1;
  FusedEngine fused_engine = FusedEngine::kTasks;
  // The last line of defence against a wedged GPU: a rank thread blocked
  // inside a CUDA call cannot be woken, and the watchdog above runs only
  // between calls. When the rank threads have not all returned this many
  // seconds after they started, the backend writes one line to stderr naming
  // what each rank was doing and ends the process with exit code 1 (as
  // PyTorch's NCCL watchdog ends a wedged job): nothing else can release a
  // GPU whose calls never return. 0: timeout_s x (warm-up + timed iterations
  // + 4) + 120 s, ample for setup, the kernels' first loads and the teardown.
  double wedge_deadline_s = 0;
};

// Finite, positive timeout of at most a day.
Status CheckCudaBackendOptions(const CudaBackendOptions& o);
// Reads the fused kernel's test hook from env BRAID_FUSED_NEVER_SET
// ("RANK:FLAG"; unset: off). Invalid when it is not two numbers.
Status ReadFusedTestHook(const char* env_value, CudaBackendOptions& o);

struct CudaSeams {
  std::shared_ptr<cuda::CudaApi> cuda;
  std::shared_ptr<cuda::NcclApi> nccl;
  std::shared_ptr<cuda::GpuTracer> tracer;
  std::shared_ptr<cuda::FusedKernelApi> fused;  // the fused kernel (--algo fused)
  std::shared_ptr<cuda::GemmCoreApi> core;      // the GEMM core (FusedEngine::kCore)
  // Called on a rank's thread once its device is current.
  std::function<Result<std::unique_ptr<cuda::BlasLtApi>>()> make_blas;
};

// Unavailable when this braid was built without CUDA.
Result<CudaSeams> MakeRealCudaSeams();

// The numerical tolerance of --verify: 4·u_acc·√K + 2·(P+1)·u_out, with u_out
// the unit roundoff of `dtype` (the output and the partial sums are stored in
// it) and u_acc that of the fp32 accumulator (TF32's when allowed).
double CudaVerifyTolerance(DType dtype, int64_t k, int p, bool tf32);

class CudaBackend : public Backend {
 public:
  CudaBackend(CudaSeams seams, CudaBackendOptions options) : seams_(std::move(seams)), options_(std::move(options)) {}
  // One rank per process of `world` (outlives the backend) when its world
  // size is above 1: every process constructs one and calls Run alike. A
  // failure while running returns kInternal on the rank that saw it; the
  // caller then ends the job (AbortJob), since its peers are left waiting.
  CudaBackend(CudaSeams seams, CudaBackendOptions options, Launcher* world)
      : seams_(std::move(seams)), options_(std::move(options)), world_(world) {}
  std::string_view name() const override { return BackendKindName(BackendKind::kCuda); }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;
  const CudaBackendOptions& options() const { return options_; }

 private:
  CudaSeams seams_;
  CudaBackendOptions options_;
  Launcher* world_ = nullptr;
};

// The cuda backend on this machine: the real seams, and Unavailable when
// there is no usable device or no CUDA in this build. With a
// `world` of more than one process, one rank per process (collective: every
// process gets the same verdict).
Result<std::unique_ptr<Backend>> MakeCudaBackend(const CudaBackendOptions& options, Launcher* world = nullptr);

}  // namespace braid
