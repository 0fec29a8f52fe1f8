#include "rank_runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "braid/compute_stand_in.h"
#include "braid/fp8.h"
#include "braid/status_context.h"
#include "ce_window.h"
#include "dtype_convert.h"
#include "fused_core_step.h"
#include "fused_step.h"
#include "wedge_guard.h"

namespace braid::cuda {

namespace {

using Clock = std::chrono::steady_clock;

class Runner {
 public:
  explicit Runner(const RankJob& job) : job_(job) {
    st_.plan = job.plan;
    st_.rank = job.rank;
    st_.device = job.device;
    st_.transport = job.transport;
    st_.dtype = job.plan->workload.OutDType();
    st_.esize = size_t(std::max(DTypeBytes(job.plan->workload.dtype), DTypeBytes(st_.dtype)));
    st_.sm_count_targets = job.sm_count_targets;
    st_.tf32 = job.options->tf32;
    st_.layouts = *job.layouts;
    st_.api = {job.seams->cuda.get(),  job.seams->nccl.get(), nullptr, job.seams->tracer.get(), job.boot,
               job.seams->fused.get(), job.seams->core.get()};
  }
  ~Runner() {
    Mark(RankProgress::kTearDown);
    TearDown();
    Mark(RankProgress::kDone);
  }

  RankResult Run() {
    RankResult out;
    out.status = Body(out);
    out.tile_groups = std::move(st_.tile_groups);
    if (!out.status.ok()) {
      if (job_.progress != nullptr) job_.progress->SetFailure(out.status.message());
      job_.failed->store(true);
      job_.boot->Abort(out.status.message());
      RaiseOwnFlags();
      if (st_.comm != nullptr) {
        (void)st_.api.nccl->CommAbort(st_.comm);
        // The abort freed the communicator and its windows: no deregistration.
        if (peers_ != nullptr) peers_->Abandon();
        window_ = nullptr;
      }
      st_.comm = nullptr;
    }
    return out;
  }

 private:
  Status Body(RankResult& out) {
    Mark(RankProgress::kSetUp);
    CudaApi& cuda = *st_.api.cuda;
    BRAID_RETURN_IF_ERROR(cuda.SetDevice(st_.device));
    auto blas = job_.seams->make_blas();
    BRAID_RETURN_IF_ERROR(blas.status());
    blas_ = std::move(blas).value();
    st_.api.blas = blas_.get();
    BRAID_RETURN_IF_ERROR(AllocateBuffers());
    BRAID_RETURN_IF_ERROR(SetUpTransport());
    BRAID_RETURN_IF_ERROR(SetUpFused());
    BRAID_RETURN_IF_ERROR(CreateStreams());
    BRAID_RETURN_IF_ERROR(Prime());
    const int total = job_.run->warmup + job_.run->iters;
    for (int it = 0; it < total; ++it) BRAID_RETURN_IF_ERROR(Iteration(it, out));
    Mark(RankProgress::kReading);
    return ReadOutputs(out);
  }

  // After a failure a stream of this rank may wait for a flag that will never
  // rise (a peer stopped, or the watchdog fired), and every later call that
  // waits for the device (cudaFree in TearDown) would then wait forever: the
  // H200's first hung runs never printed their error. Raising every flag of
  // this rank to the top ends its waits; the run has failed, so the data the
  // copies behind them move no longer matters. Each rank raises its own.
  // "Top" in cuStreamWaitValue32's GEQ, which is cyclic ((int32_t)(*addr -
  // value) >= 0): INT32_MAX is past every epoch (1 .. iterations); all ones
  // (what this wrote until 2026-11-26) is -1 there, below every epoch, so
  // the waits stayed and tear-down's cudaFree hung without a word.
  void RaiseOwnFlags() {
    if (st_.flags == nullptr || st_.layout().flags <= 0) return;
    const std::vector<uint32_t> top(size_t(st_.layout().flags), uint32_t(INT32_MAX));
    (void)st_.api.cuda->Upload(st_.flags, top.data(), top.size() * sizeof(uint32_t));
  }

  void Mark(RankProgress::Phase phase) {
    if (job_.progress == nullptr) return;
    job_.progress->since_ns.store(SteadyNowNs());
    job_.progress->phase.store(phase);
  }

  Result<DevPtr> Alloc(size_t bytes) {
    auto p = st_.api.cuda->Malloc(std::max<size_t>(bytes, 16));
    if (p.ok()) owned_.push_back(*p);
    return p;
  }

  // FP8: one device fp32 scalar per tensor, the dequantization factor
  // 1 / scale (what TransformerEngine passes as scale_inv).
  Status UploadScales() {
    if (job_.scales == nullptr || !IsFp8(st_.plan->workload.dtype)) return Status::Ok();
    for (float scale : *job_.scales) {
      BRAID_ASSIGN_OR_RETURN(auto p, Alloc(sizeof(float)));
      const float inv = 1.0f / scale;
      BRAID_RETURN_IF_ERROR(st_.api.cuda->Upload(p, &inv, sizeof inv));
      st_.scales.push_back(p);
    }
    return Status::Ok();
  }

  // `host` (rows×cols, fp32) in the buffer's type: FP8 quantized with its
  // tensor's scale (the values are already FP8 values over that scale, so
  // this gives their codes back), a transposed B written as cols×rows.
  std::vector<uint8_t> Encode(const BufferDecl& d, const BufferType& t, const std::vector<float>& host) const {
    const size_t elems = host.size();
    std::vector<uint8_t> bytes(elems * size_t(DTypeBytes(t.dtype)));
    if (!IsFp8(t.dtype) || t.scale < 0 || job_.scales == nullptr) {
      StoreAs(t.dtype, host.data(), elems, bytes.data());
      return bytes;
    }
    const float scale = (*job_.scales)[size_t(t.scale)];
    const Fp8Format format = Fp8FormatOf(t.dtype);
    for (int64_t r = 0; r < d.rows; ++r) {
      for (int64_t c = 0; c < d.cols; ++c) {
        const size_t at = size_t(t.transposed ? c * d.rows + r : r * d.cols + c);
        bytes[at] = QuantizeFp8(format, host[size_t(r * d.cols + c)], scale);
      }
    }
    return bytes;
  }

  Status AllocateBuffers() {
    const RankPlan& rp = st_.rank_plan();
    BRAID_ASSIGN_OR_RETURN(st_.types, TypeBuffers(*st_.plan, st_.rank));
    if (IsFp8(st_.plan->workload.dtype) && (job_.scales == nullptr || job_.scales->empty())) {
      return Status::Internal("cuda backend: an FP8 run without its per-tensor scales");
    }
    BRAID_RETURN_IF_ERROR(UploadScales());
    for (size_t id = 0; id < rp.buffers.size(); ++id) {
      const BufferDecl& d = rp.buffers[id];
      const BufferType& t = st_.types[id];
      const size_t elems = size_t(d.rows * d.cols);
      BRAID_ASSIGN_OR_RETURN(auto p, Alloc(elems * size_t(DTypeBytes(t.dtype))));
      st_.buffers.push_back(p);
      std::vector<float> host(elems, 0.0f);
      if (d.role == BufferRole::kInput) {
        const InputWindow& w = d.input;
        const HostMatrix& src = w.matrix == Matrix::kA ? (*job_.a)[size_t(d.op)] : (*job_.b)[size_t(d.op)];
        for (int64_t i = 0; i < w.rows; ++i) {
          const float* from = src.row(w.row0 + i) + w.col0;
          std::copy(from, from + w.cols, host.data() + (w.dst_row + i) * d.cols);
        }
      }
      const std::vector<uint8_t> bytes = Encode(d, t, host);
      BRAID_RETURN_IF_ERROR(st_.api.cuda->Upload(p, bytes.data(), bytes.size()));
    }
    // The compute steps' stand-in GEMMs share three zeroed operands, sized
    // for the largest of them (a rank without compute steps has none).
    int64_t a_elems = 0, b_elems = 0, c_elems = 0;
    for (const Step& s : rp.steps) {
      if (s.kind != StepKind::kCompute) continue;
      const ComputeStandIn shape = StandInFor(s.flops);
      a_elems = std::max(a_elems, shape.m * shape.k);
      b_elems = std::max(b_elems, shape.k * shape.n);
      c_elems = std::max(c_elems, shape.m * shape.n);
    }
    if (c_elems > 0) {
      for (const int64_t elems : {a_elems, b_elems, c_elems}) {
        BRAID_ASSIGN_OR_RETURN(auto p, Alloc(size_t(elems) * size_t(DTypeBytes(st_.dtype))));
        std::vector<uint8_t> zero(size_t(elems) * size_t(DTypeBytes(st_.dtype)), 0);
        BRAID_RETURN_IF_ERROR(st_.api.cuda->Upload(p, zero.data(), zero.size()));
        st_.scratch.push_back(p);
      }
    }
    return Status::Ok();
  }

  Status SetUpTransport() {
    const TransferLayout& me = st_.layout();
    if (st_.transport == Transport::kFlags) {
      // Loopback: every rank on one device, plain buffers. Separate GPUs
      // (threads or processes): NCCL windows, which need a communicator.
      if (job_.options->loopback) {
        peers_ = MakeInProcessPeerMemory(*st_.api.cuda, *st_.api.boot, true);
      } else {
        BRAID_RETURN_IF_ERROR(JoinCommunicator());
        peers_ = MakeNcclWindowPeerMemory(*st_.api.nccl, *st_.api.cuda, st_.comm, st_.plan->tp());
      }
      return SetUpPeerInboxes(st_, *peers_, CeWindowOf(st_.layouts, st_.esize), window_);
    }
    if (st_.transport == Transport::kNccl) {
      BRAID_ASSIGN_OR_RETURN(auto stage, Alloc(size_t(me.stage_elems) * st_.esize));
      st_.stage = stage;
      return JoinCommunicator();
    }
    return Status::Ok();
  }

  // Rank 0's ncclUniqueId through the bootstrap, then ncclCommInitRankConfig
  // with the comm SM budget.
  Status JoinCommunicator() {
    Bytes id(sizeof(NcclUniqueId));
    if (st_.rank == 0) {
      BRAID_ASSIGN_OR_RETURN(auto uid, st_.api.nccl->GetUniqueId());
      std::memcpy(id.data(), uid.data(), id.size());
    }
    BRAID_RETURN_IF_ERROR(st_.api.boot->Broadcast(id, 0));
    NcclUniqueId uid{};
    std::memcpy(uid.data(), id.data(), uid.size());
    NcclCommConfig config;
    config.max_ctas = job_.comm_sms;
    config.min_ctas = std::min(job_.comm_sms, 1);
    BRAID_ASSIGN_OR_RETURN(auto comm, st_.api.nccl->CommInitRank(st_.plan->tp(), uid, st_.rank, config));
    st_.comm = comm;
    return Status::Ok();
  }

  Status SetUpFused() {
    if (!HasFusedSteps(*st_.plan)) return Status::Ok();
    FusedSettings f;
    f.sms_per_rank = job_.fused_sms_per_rank;
    f.comm_sms = job_.comm_sms;
    f.timeout_s = job_.options->timeout_s;
    f.never_set_rank = job_.options->fused_never_set_rank;
    f.never_set_flag = job_.options->fused_never_set_flag;
    f.engine = job_.options->fused_engine;
    f.stamp_tiles = job_.run->trace;
    BRAID_ASSIGN_OR_RETURN(f.props, st_.api.cuda->Props(st_.device));
    auto peers = MakeInProcessPeerMemory(*st_.api.cuda, *st_.api.boot, job_.options->loopback);
    const DeviceAlloc alloc = [this](size_t bytes) { return Alloc(bytes); };
    if (f.engine == FusedEngine::kCore) return SetUpCoreSteps(st_, f, alloc, *peers);
    return SetUpFusedSteps(st_, f, alloc, *peers, st_.fused);
  }

  Status CreateStreams() {
    const Plan& plan = *st_.plan;
    CudaApi& cuda = *st_.api.cuda;
    st_.send_queue.assign(plan.lanes.size(), nullptr);
    for (const Lane& lane : plan.lanes) {
      BRAID_ASSIGN_OR_RETURN(auto s, cuda.CreateStream(lane.priority));
      st_.lanes.push_back(s);
    }
    if (st_.transport == Transport::kNccl) {
      for (const Step& s : st_.rank_plan().steps) {
        if (s.kind != StepKind::kSend || st_.send_queue[size_t(s.lane)] != nullptr) continue;
        BRAID_ASSIGN_OR_RETURN(auto q, cuda.CreateStream(plan.lanes[size_t(s.lane)].priority));
        st_.send_queue[size_t(s.lane)] = q;
      }
    }
    for (size_t i = 0; i < st_.rank_plan().steps.size(); ++i) {
      BRAID_ASSIGN_OR_RETURN(auto e, cuda.CreateEvent());
      st_.done.push_back(e);
    }
    return Status::Ok();
  }

  // Every kernel loaded before any rank waits on another (PrimeKernels), and
  // the cuBLASLt workspace of each lane allocated.
  Status Prime() {
    Mark(RankProgress::kPriming);
    BRAID_ASSIGN_OR_RETURN(st_.prime_scratch, Alloc(kPrimeScratchBytes));
    BRAID_RETURN_IF_ERROR(PrimeKernels(st_));
    Mark(RankProgress::kWaiting);  // the watchdog bounds this wait, not the stall limit
    return WaitIdle(-1);
  }

  Status Iteration(int it, RankResult& out) {
    Bootstrap& boot = *st_.api.boot;
    GpuTracer& tracer = *st_.api.tracer;
    const bool timed = it >= job_.run->warmup;
    if (it == job_.run->warmup && job_.run->trace) {
      BRAID_RETURN_IF_ERROR(boot.Barrier());
      Mark(RankProgress::kTracing);
      if (job_.owns_tracer) BRAID_RETURN_IF_ERROR(tracer.Start());
    }
    if (job_.progress != nullptr) job_.progress->iteration.store(it);
    Mark(RankProgress::kBarrier);
    BRAID_RETURN_IF_ERROR(boot.Barrier());
    const int64_t t0 = SteadyNowNs();
    const uint32_t epoch = uint32_t(it + 1);
    for (const Step& s : st_.rank_plan().steps) {
      if (job_.progress != nullptr) job_.progress->step.store(s.id);
      Mark(RankProgress::kIssuing);
      const int traced_it = timed ? it - job_.run->warmup : -1;
      BRAID_RETURN_IF_ERROR(tracer.PushStep(StepCorrelation(traced_it, st_.rank, s.id), st_.StepName(s)));
      const Status issued = IssueStep(st_, s, epoch);
      BRAID_RETURN_IF_ERROR(tracer.PopStep());
      if (!issued.ok()) return WithContext(issued, st_.StepName(s));
    }
    // Every rank issued its work: what cannot finish now never will.
    Mark(RankProgress::kBarrier);
    BRAID_RETURN_IF_ERROR(boot.Barrier());
    Mark(RankProgress::kWaiting);
    BRAID_RETURN_IF_ERROR(WaitIdle(it));
    BRAID_RETURN_IF_ERROR(CheckFusedErrors(st_, it));
    Mark(RankProgress::kBarrier);
    BRAID_RETURN_IF_ERROR(boot.Barrier());
    if (timed && st_.rank == 0) out.iteration_ns.push_back(SteadyNowNs() - t0);
    // After the iteration's clock stopped: two small reads per core step.
    if (timed && job_.run->trace) BRAID_RETURN_IF_ERROR(ReadTileGroups(st_, it - job_.run->warmup));
    if (it + 1 == job_.run->warmup + job_.run->iters && job_.run->trace && timed && job_.owns_tracer) {
      Mark(RankProgress::kTracing);
      BRAID_RETURN_IF_ERROR(tracer.Stop());
    }
    return Status::Ok();
  }

  // `it` -1: Prime's launches.
  static std::string When(int it) { return it < 0 ? "loading its kernels" : "iteration " + std::to_string(it); }

  // Polls every stream of this rank until idle, another rank failed, or the
  // watchdog fires; then names the first step that has not finished.
  Status WaitIdle(int it) {
    CudaApi& cuda = *st_.api.cuda;
    const auto deadline = Clock::now() + std::chrono::duration<double>(job_.options->timeout_s);
    std::vector<GpuStream> streams = st_.lanes;
    for (GpuStream q : st_.send_queue) {
      if (q != nullptr) streams.push_back(q);
    }
    for (GpuStream q : CoreStreams(st_)) streams.push_back(q);
    for (;;) {
      bool idle = true;
      for (GpuStream s : streams) {
        auto done = cuda.Query(s);
        if (!done.ok()) {
          // A GEMM core that timed out trapped: its record names the step.
          BRAID_RETURN_IF_ERROR(CheckCoreTimeouts(st_, it));
          return Status::Internal("rank " + std::to_string(st_.rank) + ", " + When(it) + ": " +
                                  done.status().message());
        }
        idle = idle && *done;
      }
      if (idle) return Status::Ok();
      if (job_.failed->load())
        return Status::Internal("rank " + std::to_string(st_.rank) + ": stopped, another rank failed");
      if (Clock::now() > deadline) return Stuck(it);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  // Names the first unfinished step, then the first unfinished step of every
  // other lane: a hang on a GPU is diagnosed from this line alone (which
  // waits are stuck on which lanes), so it must say where each stream stands.
  Status Stuck(int it) {
    const RankPlan& rp = st_.rank_plan();
    std::string where = "rank " + std::to_string(st_.rank);
    std::vector<int> first_open(st_.lanes.size(), -1);
    for (const Step& s : rp.steps) {
      if (first_open[size_t(s.lane)] >= 0) continue;
      auto done = st_.api.cuda->EventDone(st_.done[size_t(s.id)]);
      if (done.ok() && !*done) first_open[size_t(s.lane)] = s.id;
    }
    int first = -1;
    for (int id : first_open) {
      if (id >= 0 && (first < 0 || id < first)) first = id;
    }
    if (first >= 0) where = st_.StepName(rp.steps[size_t(first)]);
    std::string lanes;
    for (size_t l = 0; l < first_open.size(); ++l) {
      const std::string& lane = st_.plan->lanes[l].name;
      lanes += (lanes.empty() ? "" : ", ") + lane + ": " +
               (first_open[l] < 0
                    ? "idle"
                    : "step " + std::to_string(first_open[l]) + " '" + rp.steps[size_t(first_open[l])].name + "'");
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", job_.options->timeout_s);
    return Status::Internal(where + ", " + When(it) + ": not finished after " + secs +
                            " s (`timeout_s`; lanes at: " + lanes + "); the communicators were aborted");
  }

  Status ReadOutputs(RankResult& out) {
    const RankPlan& rp = st_.rank_plan();
    for (const OpOutput& o : rp.Outputs()) {
      const BufferDecl& d = rp.buffers[size_t(o.buffer)];
      const size_t elems = size_t(d.rows * d.cols);
      const DType type = st_.TypeOf(o.buffer);
      std::vector<uint8_t> bytes(elems * size_t(DTypeBytes(type)));
      BRAID_RETURN_IF_ERROR(st_.api.cuda->Download(bytes.data(), st_.buffers[size_t(o.buffer)], bytes.size()));
      std::vector<float> f(elems);
      LoadFrom(type, bytes.data(), elems, f.data());
      out.outputs.push_back(std::move(f));
    }
    return Status::Ok();
  }

  // Best effort: a failed release must not hide the run's own status.
  void TearDown() {
    CudaApi& cuda = *st_.api.cuda;
    // The window (an NCCL one is deregistered) before its communicator.
    if (peers_ != nullptr && window_ != nullptr) (void)peers_->Free(window_);
    peers_.reset();
    if (st_.comm != nullptr) (void)st_.api.nccl->CommDestroy(st_.comm);
    for (GpuEvent e : st_.done) (void)cuda.DestroyEvent(e);
    TearDownCoreSteps(st_);
    for (GpuStream s : st_.lanes) (void)cuda.DestroyStream(s);
    for (GpuStream s : st_.send_queue) {
      if (s != nullptr) (void)cuda.DestroyStream(s);
    }
    for (DevPtr p : owned_) (void)cuda.Free(p);
  }

  const RankJob& job_;
  RankState st_;
  std::unique_ptr<BlasLtApi> blas_;
  std::vector<DevPtr> owned_;
  std::unique_ptr<PeerMemory> peers_;  // flags transport: where the window came from
  DevPtr window_ = nullptr;
};

}  // namespace

RankResult RunRank(const RankJob& job) {
  Runner runner(job);
  return runner.Run();
}

}  // namespace braid::cuda
