// The real MeasureDevice (braid/gpu_measure.h): cuBLASLt GEMMs through the
// BlasLtApi seam, buffers, streams, copies and flags through CudaApi, and
// the CUDA runtime for what those seams do not offer (timing events, CUDA
// graphs, the kernels of measure_kernels.cu), the fused kernel through its
// own seam (FusedKernelApi) on probe tables, and the GEMM core through
// GemmCoreApi. Run on an H100 and an H200 (presets/measured/*/measure);
// the GEMM core's probe never yet.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <thread>
#include <tuple>

#include "braid/cupti_collector.h"
#include "braid/gpu_measure.h"
#include "cuda_check.h"
#include "host/upload_vector.h"
#include "measure/measure_kernels.h"
#include "real/real_seams.h"
#include "real/runtime_stream.h"

namespace braid::measure {

namespace {

using cuda::DevPtr;
using cuda::GpuStream;

constexpr int kInputSets = 4;                          // rotated so that the L2 does not hold a GEMM's inputs
constexpr int64_t kHolderCopyBytes = 64 << 20;         // the copying holder's buffer
constexpr uint64_t kHolderTimeoutNs = 10'000'000'000;  // a holder never outlives this
constexpr double kSampleTimeoutS = 60;                 // nor does the host wait longer for one sample

class RealMeasureDevice : public MeasureDevice {
 public:
  ~RealMeasureDevice() override {
    // Bounded waits: a device still busy after them keeps its memory (freeing
    // would wait for it); the process is about to report the error anyway.
    if (side_done_ != nullptr && (!Finish(main_).ok() || !Finish(side_).ok())) return;
    for (auto& [key, exec] : graphs_) (void)cudaGraphExecDestroy(exec);
    for (auto& [key, exec] : gap_graphs_) (void)cudaGraphExecDestroy(exec);
    for (cudaEvent_t e : {start_, stop_, fork_, side_done_}) {
      if (e != nullptr) (void)cudaEventDestroy(e);
    }
    for (DevPtr p : buffers_) (void)cuda_->Free(p);
    blas_.reset();
    for (GpuStream s : {main_, side_}) {
      if (s != nullptr) (void)cuda_->DestroyStream(s);
    }
  }

  Status Open(int device) {
    cuda_ = cuda::MakeRealCuda();
    auto count = cuda_->DeviceCount();
    if (!count.ok()) return Status::Unavailable("no usable CUDA device: " + count.status().message());
    if (*count <= device) return Status::Unavailable("no CUDA device " + std::to_string(device) + " found");
    BRAID_RETURN_IF_ERROR(cuda_->SetDevice(device));
    BRAID_ASSIGN_OR_RETURN(auto props, cuda_->Props(device));
    props_ = props;
    if (props_.cc_major < 8) return Status::Unavailable(props_.name + ": needs compute capability 8.0 or newer");
    int optin = 0;
    BRAID_RETURN_IF_ERROR(
        BRAID_CUDA_STATUS(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)));
    // All a CTA may take, less room for the holder's static shared memory:
    // more than half an SM's, so one CTA per SM and no GEMM CTA beside it.
    smem_optin_ = optin;
    smem_bytes_ = optin - 1024;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(AllowMeasureSharedMemory(smem_bytes_)));
    for (GpuStream* s : {&main_, &side_}) {
      BRAID_ASSIGN_OR_RETURN(auto st, cuda_->CreateStream(0));
      *s = st;
    }
    for (cudaEvent_t* e : {&start_, &stop_}) BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventCreate(e)));
    for (cudaEvent_t* e : {&fork_, &side_done_}) {
      BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventCreateWithFlags(e, cudaEventDisableTiming)));
    }
    auto blas = cuda::MakeRealBlasLt();
    BRAID_RETURN_IF_ERROR(blas.status());
    blas_ = std::move(blas).value();
    fused_ = cuda::MakeRealFused();
    core_ = cuda::MakeRealGemmCore();
    return Status::Ok();
  }

  std::string Name() const override { return props_.name; }
  int SmCount() const override { return props_.sm_count; }

  Status Prepare(const MeasurePlan& plan) override {
    int64_t a = 0, b = 0, c = 0;
    std::vector<GemmShape> all = plan.gemm_shapes;
    all.insert(all.end(), plan.held_shapes.begin(), plan.held_shapes.end());
    all.insert(all.end(), plan.fp8_gemm_shapes.begin(), plan.fp8_gemm_shapes.end());
    all.push_back(plan.ce_gemm);
    all.insert(all.end(), plan.fused_shapes.begin(), plan.fused_shapes.end());
    for (const GemmShape& s : all) {
      a = std::max(a, s.m * s.k), b = std::max(b, s.k * s.n), c = std::max(c, s.m * s.n);
    }
    for (int i = 0; i < kInputSets; ++i) {
      auto& set = sets_[i];
      for (const std::pair<DevPtr*, int64_t>& buffer : {std::pair{&set.a, a}, {&set.b, b}, {&set.c, c}}) {
        const size_t elems = size_t(buffer.second);
        BRAID_ASSIGN_OR_RETURN(auto p, Alloc(elems * 2));
        DevPtr ptr = *buffer.first = p;
        const unsigned seed = unsigned(i + 1);
        BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(LaunchFillBf16(ptr, elems, seed, RuntimeStream(main_))));
      }
    }
    copy_bytes_ = std::max(plan.sm_copy_bytes, plan.ce_copy_bytes);
    for (DevPtr* p : {&copy_src_, &copy_dst_}) {
      BRAID_ASSIGN_OR_RETURN(auto m, Alloc(size_t(copy_bytes_)));
      *p = m;
    }
    for (DevPtr* p : {&holder_src_, &holder_dst_}) {
      BRAID_ASSIGN_OR_RETURN(auto m, Alloc(size_t(kHolderCopyBytes)));
      *p = m;
    }
    BRAID_ASSIGN_OR_RETURN(auto flags, Alloc(64));
    flags_ = flags;
    BRAID_ASSIGN_OR_RETURN(auto unit, Alloc(16));
    unit_scale_ = unit;
    const float one = 1.0f;
    BRAID_RETURN_IF_ERROR(cuda_->Upload(unit_scale_, &one, sizeof one));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaMemsetAsync(flags_, 0, 64, RuntimeStream(main_))));
    // The fused kernel's error record and (unused: no task waits) flags.
    BRAID_ASSIGN_OR_RETURN(auto fused_state, Alloc(sizeof(cuda::fused::FusedError) + 64));
    fused_state_ = fused_state;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(
        cudaMemsetAsync(fused_state_, 0, sizeof(cuda::fused::FusedError) + 64, RuntimeStream(main_))));
    return Finish(main_);
  }

  Result<double> GemmNs(const GemmShape& s, int count) override {
    BRAID_ASSIGN_OR_RETURN(auto graph, GemmGraph(s, count));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGraphLaunch(graph, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    BRAID_ASSIGN_OR_RETURN(auto ns, Elapsed());
    return ns / count;
  }

  bool HasFp8() const override { return props_.cc_major * 10 + props_.cc_minor >= 89; }

  Result<double> Fp8GemmNs(const GemmShape& s, int count) override {
    if (!HasFp8()) return MeasureDevice::Fp8GemmNs(s, count);
    BRAID_ASSIGN_OR_RETURN(auto graph, GemmGraph(s, count, true));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGraphLaunch(graph, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    BRAID_ASSIGN_OR_RETURN(auto ns, Elapsed());
    return ns / count;
  }

  Result<double> GemmBesideHolderNs(const GemmShape& s, int count, Holder holder, int held_sms) override {
    if (held_sms == 0) return GemmNs(s, count);
    BRAID_ASSIGN_OR_RETURN(auto graph, GemmGraph(s, count));
    // started counts every holder CTA ever launched; release carries the
    // generation the current holders stop at.
    auto* started = static_cast<unsigned*>(flags_);
    auto* release = started + 1;
    ++generation_;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(
        LaunchHolder(held_sms, smem_bytes_, started, release, generation_, holder == Holder::kCopy, holder_dst_,
                     holder_src_, size_t(kHolderCopyBytes / 16), kHolderTimeoutNs, RuntimeStream(side_))));
    started_total_ += unsigned(held_sms);
    // The GEMMs start once every holder CTA sits on its SM.
    BRAID_RETURN_IF_ERROR(cuda_->WaitFlag(started, started_total_, main_));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGraphLaunch(graph, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(cuda_->WriteFlag(release, generation_, main_));
    BRAID_RETURN_IF_ERROR(Finish(side_));
    BRAID_ASSIGN_OR_RETURN(auto ns, Elapsed());
    return ns / count;
  }

  Result<double> SmCopyNs(int sms, int64_t bytes) override {
    if (bytes > copy_bytes_) return Status::Internal("an SM copy larger than Prepare allocated");
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(
        LaunchSmCopy(sms, smem_bytes_, copy_dst_, copy_src_, size_t(bytes / 16), RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    return Elapsed();
  }

  Result<double> CeCopyNs(int64_t bytes) override {
    if (bytes > copy_bytes_) return Status::Internal("a copy larger than Prepare allocated");
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(CeCopy(bytes, main_));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    return Elapsed();
  }

  Result<double> GemmBesideCeCopyNs(const GemmShape& s, int64_t copy_bytes) override {
    if (copy_bytes > copy_bytes_) return Status::Internal("a copy larger than Prepare allocated");
    BRAID_ASSIGN_OR_RETURN(auto graph, GemmGraph(s, 1));
    // The copy is queued first; the GEMM's stream waits until it is queued.
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(fork_, RuntimeStream(side_))));
    BRAID_RETURN_IF_ERROR(CeCopy(copy_bytes, side_));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaStreamWaitEvent(RuntimeStream(main_), fork_, 0)));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGraphLaunch(graph, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(Finish(side_));
    return Elapsed();
  }

  Result<double> LaunchGapNs(Launcher launcher, Gap gap) override {
    auto* slots = reinterpret_cast<uint64_t*>(static_cast<char*>(flags_) + 16);
    if (launcher == Launcher::kHost) {
      BRAID_RETURN_IF_ERROR(IssueGapPair(gap, slots));
    } else {
      BRAID_ASSIGN_OR_RETURN(auto exec, GapGraph(gap, slots));
      BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGraphLaunch(exec, RuntimeStream(main_))));
    }
    BRAID_RETURN_IF_ERROR(Finish(main_));
    uint64_t t[2] = {0, 0};
    BRAID_RETURN_IF_ERROR(cuda_->Download(t, slots, sizeof t));
    if (t[1] <= t[0]) return Status::Internal("the second kernel's timer did not advance past the first's");
    return double(t[1] - t[0]);
  }

  // One GEMM of each shape traced by CUPTI, tagged with its index (external
  // correlation), after one untraced GEMM of each: cuBLASLt sets up its
  // workspace and heuristic answer on first use, as before the graphs. The
  // kernels each launched, in launch order (one stream).
  Result<std::vector<sim::MeasuredGemmKernel>> GemmKernels(const std::vector<GemmShape>& shapes, bool fp8) override {
    if (fp8 && !HasFp8()) return MeasureDevice::GemmKernels(shapes, fp8);
    for (const GemmShape& s : shapes) BRAID_RETURN_IF_ERROR(IssueGemms(s, 1, fp8));
    BRAID_RETURN_IF_ERROR(Finish(main_));
    CuptiCollectorOptions options;
    options.context.keep_launches = true;
    options.buffer_bytes = size_t{1} << 20;
    CuptiCollector cupti(options);
    if (Status started = cupti.Start(); !started.ok()) return Status::Unavailable("CUPTI: " + started.message());
    Status issued = Status::Ok();
    for (size_t i = 0; i < shapes.size() && issued.ok(); ++i) {
      issued = CuptiCollector::PushCorrelation(i + 1);
      if (!issued.ok()) break;
      issued = IssueGemms(shapes[i], 1, fp8);
      const Status popped = CuptiCollector::PopCorrelation();
      if (issued.ok()) issued = popped;
    }
    if (issued.ok()) issued = Finish(main_);
    const Status stopped = cupti.Stop();  // records dropped: the log is not whole
    BRAID_RETURN_IF_ERROR(issued);
    if (!stopped.ok()) return Status::Unavailable("CUPTI: " + stopped.message());
    std::vector<KernelLaunch> launches = cupti.TakeLaunches();
    std::stable_sort(launches.begin(), launches.end(),
                     [](const KernelLaunch& a, const KernelLaunch& b) { return a.correlation < b.correlation; });
    std::vector<sim::MeasuredGemmKernel> out;
    for (const KernelLaunch& l : launches) {
      if (l.correlation < 1 || l.correlation > shapes.size()) continue;  // not one of the tagged GEMMs
      const GemmShape& s = shapes[size_t(l.correlation - 1)];
      sim::MeasuredGemmKernel k;
      k.m = s.m, k.n = s.n, k.k = s.k, k.fp8 = fp8;
      k.kernel = l.name;
      k.grid_ctas = int64_t(l.grid[0]) * l.grid[1] * l.grid[2];
      const int cluster = l.cluster[0] * l.cluster[1] * l.cluster[2];
      k.cluster_ctas = cluster > 0 ? cluster : 1;
      k.max_active_clusters = l.max_active_clusters;
      k.block_threads = l.block[0] * l.block[1] * l.block[2];
      k.registers = l.registers;
      k.shared_bytes = l.shared_bytes;
      out.push_back(std::move(k));
    }
    if (out.empty()) return Status::Unavailable("CUPTI recorded no kernel of the tagged GEMMs");
    return out;
  }

  // Rank 0 of a loopback ag_gemm: its gathered A is set 0's, every peer's A
  // is set 1's (each pull reads the peer's own rows of it).
  Result<double> FusedPartNs(const GemmShape& s, int comm_sms, int ranks, FusedPart part, int count) override {
    BRAID_ASSIGN_OR_RETURN(auto launch, FusedLaunchFor(s, comm_sms, ranks, part));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    for (int i = 0; i < count; ++i) BRAID_RETURN_IF_ERROR(fused_->Launch(launch, main_));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    BRAID_ASSIGN_OR_RETURN(auto ns, Elapsed());
    cuda::fused::FusedError e;
    BRAID_RETURN_IF_ERROR(cuda_->Download(&e, fused_state_, sizeof e));
    if (e.code != 0) return Status::Internal("the fused kernel reported error " + std::to_string(e.code));
    return ns / count;
  }

  Result<cuda::gemm::GemmDevice> CoreDevice() const override {
    auto arch = cuda::gemm::ArchForCapability(props_.cc_major, props_.cc_minor);
    if (!arch.ok()) return Status::Unavailable(props_.name + ": " + arch.status().message());
    return cuda::gemm::GemmDevice{*arch, props_.sm_count, smem_optin_};
  }

  // Rank 0 of a loopback ag_gemm on the GEMM core, as the fused probe
  // above: the GEMM half reads set 0's A (every row taken as landed), the
  // transfer half pulls set 1's rows of the other blocks into set 0's A.
  Result<double> CoreFusedPartNs(const CoreProbe& probe, FusedPart part, int count) override {
    cuda::CoreGemmLaunch gemm;
    CorePulls* pulls = nullptr;
    if (part == FusedPart::kGemm) {
      gemm.problem = probe.gemm.problem;
      gemm.device = {probe.gemm.config.arch, probe.gemm.grid, smem_optin_};  // re-planned by the launch: the same grid
      gemm.a = sets_[0].a, gemm.b = sets_[0].b, gemm.c = sets_[0].c;
    } else {
      BRAID_ASSIGN_OR_RETURN(pulls, CorePullsFor(probe));
    }
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(start_, RuntimeStream(main_))));
    for (int i = 0; i < count; ++i) {
      if (pulls == nullptr) {
        BRAID_RETURN_IF_ERROR(core_->Launch(gemm, main_));
      } else {
        // The done counters are cumulative: each run raises the flags to
        // the next epoch.
        cuda::gemm::RowPullLaunch k = pulls->launch;
        k.epoch = ++pulls->epoch;
        BRAID_RETURN_IF_ERROR(core_->LaunchPulls(k, probe.comm_ctas, main_));
      }
    }
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(stop_, RuntimeStream(main_))));
    BRAID_ASSIGN_OR_RETURN(auto ns, Elapsed());
    return ns / count;
  }

 private:
  // One core probe's pull table, flags and done counters on the device,
  // with the epoch its last run raised the flags to.
  struct CorePulls {
    cuda::gemm::RowPullLaunch launch;
    uint32_t epoch = 0;
  };

  Result<CorePulls*> CorePullsFor(const CoreProbe& probe) {
    const auto key = std::tuple{probe.shape.m, probe.shape.n, probe.shape.k, probe.comm_ctas, probe.ranks};
    if (auto it = core_pulls_.find(key); it != core_pulls_.end()) return &it->second;
    const size_t row_bytes = size_t(probe.shape.k) * 2;  // bf16
    std::vector<cuda::gemm::RowPull> table;
    for (const cuda::fused::CorePull& p : probe.pulls) {
      const size_t off = size_t(p.row0) * row_bytes;
      table.push_back({static_cast<const char*>(sets_[1].a) + off, static_cast<char*>(sets_[0].a) + off,
                       int64_t(size_t(p.rows) * row_bytes), p.flag, 0});
    }
    // Flags and done counters start at zero, as the backend sets them up
    // (fused_core_step.cc).
    const cuda::DeviceAlloc alloc = [this](size_t bytes) { return Alloc(bytes); };
    BRAID_ASSIGN_OR_RETURN(auto pulls, cuda::UploadVector(alloc, *cuda_, table));
    BRAID_ASSIGN_OR_RETURN(auto flags,
                           cuda::UploadVector(alloc, *cuda_, std::vector<uint32_t>(size_t(probe.steps), 0u)));
    BRAID_ASSIGN_OR_RETURN(auto done, cuda::UploadVector(alloc, *cuda_, std::vector<uint32_t>(table.size(), 0u)));
    CorePulls c;
    c.launch.pulls = static_cast<const cuda::gemm::RowPull*>(pulls);
    c.launch.count = int32_t(table.size());
    c.launch.flags = static_cast<uint32_t*>(flags);
    c.launch.done = static_cast<uint32_t*>(done);
    return &core_pulls_.emplace(key, c).first->second;
  }

  struct InputSet {
    DevPtr a = nullptr, b = nullptr, c = nullptr;
  };

  // A plain 1-D device-to-device copy: the copy engine's. (Not CudaApi's
  // Copy2D: a 2 GiB row is past the devices' maximum pitch.)
  Status CeCopy(int64_t bytes, GpuStream s) {
    return BRAID_CUDA_STATUS(
        cudaMemcpyAsync(copy_dst_, copy_src_, size_t(bytes), cudaMemcpyDeviceToDevice, RuntimeStream(s)));
  }

  Result<DevPtr> Alloc(size_t bytes) {
    auto p = cuda_->Malloc(bytes);
    if (p.ok()) buffers_.push_back(*p);
    return p;
  }

  // Waits for everything issued to `s`, polling so that a hung device ends
  // in an error after kSampleTimeoutS instead of a hang.
  Status Finish(GpuStream s) {
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(side_done_, RuntimeStream(s))));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSampleTimeoutS);
    for (;;) {
      const cudaError_t e = cudaEventQuery(side_done_);
      if (e == cudaSuccess) return Status::Ok();
      if (e != cudaErrorNotReady) return BRAID_CUDA_STATUS(e);
      if (std::chrono::steady_clock::now() > deadline) {
        return Status::Unavailable("the GPU did not finish a sample within " + std::to_string(int(kSampleTimeoutS)) +
                                   " s");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  // The time between start_ and stop_ (both on main_), in ns.
  Result<double> Elapsed() {
    BRAID_RETURN_IF_ERROR(Finish(main_));
    float ms = 0;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventElapsedTime(&ms, start_, stop_)));
    return double(ms) * 1e6;
  }

  // fp8: E4M3 A and B (the bf16 fill's bytes read as E4M3 codes: the time
  // does not depend on the values), B as n×k (TN), unit scales, bf16 C.
  Status IssueGemms(const GemmShape& s, int count, bool fp8 = false) {
    for (int i = 0; i < count; ++i) {
      const InputSet& set = sets_[i % kInputSets];
      cuda::MatmulArgs m;
      m.m = s.m, m.n = s.n, m.k = s.k;
      m.a = set.a, m.b = set.b, m.c = set.c;
      m.lda = s.k, m.ldb = s.n, m.ldc = s.n;
      if (fp8) {
        m.dtype = DType::kFp8E4m3;
        m.ldb = s.k;
        m.fp8.b = DType::kFp8E4m3;
        m.fp8.a_scale = m.fp8.b_scale = unit_scale_;
      }
      BRAID_RETURN_IF_ERROR(blas_->Matmul(m, main_));
    }
    return Status::Ok();
  }

  // `count` GEMMs of `s` over the rotated input sets, captured once.
  Result<cudaGraphExec_t> GemmGraph(const GemmShape& s, int count, bool fp8 = false) {
    const auto key = std::tuple{s.m, s.n, s.k, fp8 ? -count : count};
    if (auto it = graphs_.find(key); it != graphs_.end()) return it->second;
    // One GEMM outside the capture first: cuBLASLt's workspace for this
    // stream is allocated on first use, which a capture must not see.
    BRAID_RETURN_IF_ERROR(IssueGemms(s, 1, fp8));
    BRAID_RETURN_IF_ERROR(Finish(main_));
    BRAID_ASSIGN_OR_RETURN(auto exec, Capture([&] { return IssueGemms(s, count, fp8); }));
    graphs_[key] = exec;
    return exec;
  }

  // Two stamps: on one stream, or across main_ and side_ joined by an event.
  Status IssueGapPair(Gap gap, uint64_t* slots) {
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(LaunchStamp(slots, RuntimeStream(main_))));
    if (gap == Gap::kSameStream) return BRAID_CUDA_STATUS(LaunchStamp(slots + 1, RuntimeStream(main_)));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(fork_, RuntimeStream(main_))));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaStreamWaitEvent(RuntimeStream(side_), fork_, 0)));
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(LaunchStamp(slots + 1, RuntimeStream(side_))));
    // Join back, so that main_'s end covers both (and a capture is closed).
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventRecord(side_done_, RuntimeStream(side_))));
    return BRAID_CUDA_STATUS(cudaStreamWaitEvent(RuntimeStream(main_), side_done_, 0));
  }

  Result<cudaGraphExec_t> GapGraph(Gap gap, uint64_t* slots) {
    if (auto it = gap_graphs_.find(gap); it != gap_graphs_.end()) return it->second;
    BRAID_ASSIGN_OR_RETURN(auto exec, Capture([&] { return IssueGapPair(gap, slots); }));
    gap_graphs_[gap] = exec;
    return exec;
  }

  // The probe's tables for one point, uploaded once.
  Result<cuda::fused::FusedLaunch> FusedLaunchFor(const GemmShape& s, int comm_sms, int ranks, FusedPart part) {
    const auto key = std::tuple{s.m, s.n, s.k, comm_sms, ranks, int(part)};
    if (auto it = fused_launches_.find(key); it != fused_launches_.end()) return it->second;
    BRAID_ASSIGN_OR_RETURN(auto tables, FusedProbeTables(s, comm_sms, ranks, props_.sm_count, part));
    cuda::fused::FusedLaunch l;
    l.op = 0;
    l.rank = 0;
    l.ranks = ranks;
    l.m = int32_t(s.m), l.n = int32_t(s.n), l.k = int32_t(s.k);
    l.dtype = 0;
    l.ctas = tables.ctas();
    l.epoch = 1;
    l.timeout_ns = kHolderTimeoutNs;
    const cuda::DeviceAlloc alloc = [this](size_t bytes) { return Alloc(bytes); };
    BRAID_ASSIGN_OR_RETURN(auto tasks, cuda::UploadVector(alloc, *cuda_, tables.tasks));
    BRAID_ASSIGN_OR_RETURN(auto waits, cuda::UploadVector(alloc, *cuda_, tables.waits));
    BRAID_ASSIGN_OR_RETURN(auto begin, cuda::UploadVector(alloc, *cuda_, tables.cta_begin));
    l.tasks = static_cast<const cuda::fused::FusedTask*>(tasks);
    l.waits = static_cast<const cuda::fused::FlagRef*>(waits);
    l.cta_begin = static_cast<const int32_t*>(begin);
    for (int q = 0; q < ranks; ++q) {
      l.a[q] = q == 0 ? sets_[0].a : sets_[1].a;
      l.flags[q] = reinterpret_cast<uint32_t*>(static_cast<char*>(fused_state_) + sizeof(cuda::fused::FusedError));
    }
    l.b = sets_[0].b;
    l.out = sets_[0].c;
    l.error = static_cast<cuda::fused::FusedError*>(fused_state_);
    fused_launches_[key] = l;
    return l;
  }

  template <typename Issue>
  Result<cudaGraphExec_t> Capture(const Issue& issue) {
    BRAID_RETURN_IF_ERROR(
        BRAID_CUDA_STATUS(cudaStreamBeginCapture(RuntimeStream(main_), cudaStreamCaptureModeThreadLocal)));
    const Status issued = issue();
    cudaGraph_t graph = nullptr;
    const Status ended = BRAID_CUDA_STATUS(cudaStreamEndCapture(RuntimeStream(main_), &graph));
    BRAID_RETURN_IF_ERROR(issued);
    BRAID_RETURN_IF_ERROR(ended);
    cudaGraphExec_t exec = nullptr;
    const Status made = BRAID_CUDA_STATUS(cudaGraphInstantiate(&exec, graph, 0));
    (void)cudaGraphDestroy(graph);
    BRAID_RETURN_IF_ERROR(made);
    return exec;
  }

  std::shared_ptr<cuda::CudaApi> cuda_;
  std::unique_ptr<cuda::BlasLtApi> blas_;
  std::shared_ptr<cuda::FusedKernelApi> fused_;
  std::shared_ptr<cuda::GemmCoreApi> core_;
  cuda::DeviceProps props_;
  int smem_bytes_ = 0;
  int64_t smem_optin_ = 0;
  GpuStream main_ = nullptr, side_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr, fork_ = nullptr, side_done_ = nullptr;
  std::vector<DevPtr> buffers_;
  InputSet sets_[kInputSets];
  DevPtr unit_scale_ = nullptr;  // fp32 1.0: the FP8 GEMMs' A and B scale
  DevPtr copy_src_ = nullptr, copy_dst_ = nullptr, holder_src_ = nullptr, holder_dst_ = nullptr, flags_ = nullptr;
  DevPtr fused_state_ = nullptr;  // FusedError, then the flags
  int64_t copy_bytes_ = 0;
  unsigned generation_ = 0, started_total_ = 0;
  std::map<std::tuple<int64_t, int64_t, int64_t, int>, cudaGraphExec_t> graphs_;
  std::map<Gap, cudaGraphExec_t> gap_graphs_;
  std::map<std::tuple<int64_t, int64_t, int64_t, int, int, int>, cuda::fused::FusedLaunch> fused_launches_;
  std::map<std::tuple<int64_t, int64_t, int64_t, int, int>, CorePulls> core_pulls_;
};

}  // namespace

Result<std::unique_ptr<MeasureDevice>> OpenRealMeasureDevice(int device) {
  auto d = std::make_unique<RealMeasureDevice>();
  BRAID_RETURN_IF_ERROR(d->Open(device));
  return std::unique_ptr<MeasureDevice>(std::move(d));
}

}  // namespace braid::measure
