// Checking fakes of the cuda backend's seams: one FakeGpu world holds the
// devices, memory, streams, events and NCCL communicators of every rank of a
// run, and executes what the backend issues on host memory, so a run verifies
// real numbers without a GPU.
//
// What the fakes check (each failure is an error naming the step's label):
//  - streams are FIFOs: an op runs only after the ops before it on its stream;
//    a wait on an event never recorded (a lost dependency on a GPU), and a
//    stream that can never drain (a wait on an event, a flag or an NCCL peer
//    that nothing will satisfy: a would-be hang) are reported;
//  - NCCL: the k-th send from rank r to q meets the k-th recv at q from r with
//    the same byte count; every rank issues the same collectives in the same
//    order; a send and its recv progress only together (rendezvous), grouped
//    calls together;
//  - cuBLASLt FP8 (MatmulArgs::dtype FP8): cuBLASLt's rules (CheckFp8Matmul:
//    types, TN layout with B stored n×k, multiples of 16, 16-byte alignment),
//    both scale pointers set and inside live device memory, read when the
//    matmul runs; the result is the real one (the codes' values, fp32 sums,
//    × a_scale·b_scale, rounded to bf16);
//  - NCCL all-gathers and send/recv move bytes, whatever the type (FP8
//    codes too); sums are fp32 rounded to the call's type;
//  - memory: every copy, kernel and NCCL buffer lies inside a live allocation,
//    and cross-device access needs peer access enabled first;
//  - processes (NewProcess, SeamsForDevice): a process reaches another's
//    memory only inside an NCCL window that the owner registered and this
//    rank registered its counterpart of (a peer pointer used before
//    registration is reported), and never past the window's end;
//  - ready ops run in a seeded random order, so a missing dependency shows up
//    as wrong numbers under some seed;
//  - fused kernels (FusedKernelApi) run when every rank's kernel of the launch
//    is at its stream's head (co-resident, as on a GPU), executing the same
//    tables as the CUDA kernel: CTAs of all ranks interleave in seeded random
//    order, a task runs only once its flags hold the epoch, and when no CTA
//    can move the stuck ranks write the kernel's timeout record, as the
//    kernel's bounded spin would;
//  - GEMM core launches (GemmCoreApi) compute c = a·b on host memory once
//    every flag their tile tables wait for holds the epoch, after checking
//    the tables (every tile once) and its operands against live memory
//    (FP8 E4M3: one-byte A, Bᵀ of n × k, both scales, bf16 C, the scales
//    applied before the rounding); one whose flags stay down past its
//    timeout, or that nothing left can unblock, writes its record and fails
//    the launch (sticky, as the kernel's trap does).
// Query assumes every op that could unblock the stream was already issued
// (the backend queries only after all ranks issued the iteration); with
// report_hangs off it answers "not finished" forever instead, like a GPU.
// Each op gets a logical duration, so the fake tracer's events have times in
// which overlap is meaningful (not a performance model).
//
// Thread-safe: one mutex guards the whole world.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/cuda_backend.h"

namespace braid::cuda {

// The CUDA runtime's last error as a launch check and CudaCallStatus
// (braid/cuda_call_status.h) see it. A failing call sets it; GetLastError
// returns it and resets it to success, unless it is sticky (a kernel fault
// breaks the context: no read clears it and it stays the answer). A kernel
// launch's check reads it right after the launch (add_kernel.cu's LaunchAdd
// returns cudaGetLastError()), so a failure left unread is blamed on the
// launch. One per simulated host thread (the runtime's is per thread).
class FakeCudaRuntime {
 public:
  static constexpr int kMemoryAllocation = 2;  // cudaErrorMemoryAllocation: not sticky
  static constexpr int kNoDevice = 100;        // cudaErrorNoDevice
  static constexpr int kIllegalAddress = 700;  // cudaErrorIllegalAddress: sticky

  // A runtime call that fails with `error`: records it and returns it, as the call would.
  int Fail(int error, bool sticky) {
    if (!sticky_) last_ = error;
    sticky_ = sticky_ || sticky;
    return error;
  }
  // A kernel launch that the runtime accepts: its check answers what GetLastError does.
  int LaunchCheck() { return GetLastError(); }
  int GetLastError() {
    const int e = last_;
    if (!sticky_) last_ = 0;
    return e;
  }
  const char* ErrorString(int e) const {
    return e == kMemoryAllocation ? "out of memory"
           : e == kNoDevice       ? "no CUDA-capable device is detected"
           : e == kIllegalAddress ? "an illegal memory access was encountered"
                                  : "unknown error";
  }
  bool MeansNoDevice(int e) const { return e == kNoDevice; }

 private:
  int last_ = 0;
  bool sticky_ = false;
};

struct FakeGpuConfig {
  int devices = 8;
  std::string name = "NVIDIA H100 80GB HBM3";
  int sm_count = 132;
  int cc_major = 9, cc_minor = 0;
  int64_t smem_optin = 232448;  // an H100's 227 KiB per block
  // CanAccessPeer between distinct devices; false also leaves NCCL window
  // peer pointers between distinct devices null (no LSA team).
  bool peer_access = true;
  uint64_t schedule_seed = 1;  // order among ready ops
  // Fault injection: flag writes issued under a step label containing this
  // text are dropped (the receiver then waits forever).
  std::string drop_flag_writes_in;
  // Fault injection: matmuls issued under a label containing this text add 1 to c[0].
  std::string corrupt_matmul_in;
  // Fault injection: NCCL calls issued under a label containing this text
  // fail as NCCL would ("ncclSend failed: unhandled cuda error ...").
  std::string fail_nccl_in;
  // false: a stream that can never drain answers Query "not finished" like a
  // real GPU (the backend's watchdog must cut it) instead of reporting a hang.
  bool report_hangs = true;
  // CUDA's lazy module loading (the default since CUDA 12.2): the first
  // launch of a kernel in a process loads it, and the load waits for the
  // device to drain. A first launch while a stream of that device waits on
  // work another host thread has yet to issue is a deadlock on a real GPU
  // (first seen on an H200: loopback runs that never ended); the fake
  // reports it. Kernels: a matmul per shape, dtype and SM target (cuBLASLt
  // picks its kernel by those), the add kernel per dtype.
  bool lazy_module_loading = true;
  // The same wait for a stream's first copy and first stream memory operation
  // (cuStreamWriteValue32 / cuStreamWaitValue32), as if each set up the
  // stream's channel for that engine. The H200 run of 2026-11-28 hung three
  // times, each at iteration 0's first transfer step while every kernel was
  // already loaded; this is our reading of it, not documented CUDA behaviour.
  bool lazy_stream_setup = true;
  // Fault injection: a matmul issued under a label containing this text never
  // returns to its caller (a CUDA call stuck in a wedged driver).
  std::string block_thread_in;
  // Fault injection: every cudaFree never returns (a tear-down stuck in a
  // driver that waits for a device that cannot drain).
  bool block_frees = false;
};

struct FakeGpuStats {
  int64_t ops = 0, matmuls = 0, copies = 0, adds = 0, flag_writes = 0, flag_waits = 0;
  int64_t nccl_sends = 0, nccl_recvs = 0, nccl_collectives = 0, nccl_groups = 0;
  int64_t event_waits = 0, streams_created = 0, comms = 0, comm_aborts = 0;
  int64_t windows_registered = 0;  // ncclCommWindowRegister calls that succeeded
  // Calls on a communicator after ncclCommAbort freed it (use after free on a GPU).
  int64_t calls_after_abort = 0;
  // Fused kernels: launches, tasks run, launches that ended in a flag timeout.
  int64_t fused_launches = 0, fused_tasks = 0, fused_timeouts = 0;
  // GEMM core launches (the fused core engine), and those that timed out;
  // launches of its pull kernel (ag_gemm's pulls by SMs).
  int64_t core_launches = 0, core_timeouts = 0, core_pull_launches = 0;
  int64_t core_stamped_launches = 0;   // core launches that stamp their groups of tiles (traced runs)
  std::vector<int> stream_priorities;  // as requested, in creation order
  std::vector<int> sm_count_targets;   // of every matmul
  int64_t fp8_matmuls = 0;             // matmuls with FP8 operands (scales and TN layout checked)
  // Elements NCCL moved, per dtype of the call (send, recv and collective counts).
  std::map<DType, int64_t> nccl_elements;
  std::vector<int> comm_max_ctas;  // of every communicator
  int64_t live_allocations = 0;    // allocations not freed
  int64_t kernel_loads = 0;        // first launches (lazy module loads)
  int64_t stream_setups = 0;       // first copies and flag operations per stream
  // cudaFree calls made while a stream of that device could not drain, and
  // still cannot once every thread is done (read at stats()): on a real GPU
  // cudaFree waits for the device, so each is a hang.
  int64_t frees_that_would_hang = 0;
};

// The CUDA and NCCL seams of one process of a job: its streams and
// allocations belong to it (see "processes" above).
struct FakeProcess {
  std::shared_ptr<CudaApi> cuda;
  std::shared_ptr<NcclApi> nccl;
};

class FakeGpu {
 public:
  explicit FakeGpu(FakeGpuConfig config = {});
  ~FakeGpu();
  FakeGpu(const FakeGpu&) = delete;
  FakeGpu& operator=(const FakeGpu&) = delete;

  CudaSeams Seams();
  // The seams of one process of an mpirun job whose GPU is `device` (a new
  // process per call): the same world (NCCL peers meet across these
  // processes), but its memory is its own and its tracer sees that device's
  // work only.
  CudaSeams SeamsForDevice(int device);
  FakeProcess NewProcess();
  std::shared_ptr<CudaApi> cuda();
  std::shared_ptr<NcclApi> nccl();
  std::shared_ptr<GpuTracer> tracer();
  std::shared_ptr<GpuTracer> tracer(int device);
  std::shared_ptr<FusedKernelApi> fused();
  std::shared_ptr<GemmCoreApi> core();
  FakeGpuStats stats() const;

  struct World;

 private:
  std::shared_ptr<World> world_;
};

}  // namespace braid::cuda
