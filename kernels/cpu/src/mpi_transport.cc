#include "braid/mpi_transport.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "braid/link_pacer.h"
#include "braid/mpi_wait.h"
#include "braid/wait_deadline.h"
#include "cpu_collectives.h"

namespace braid {

namespace {

constexpr int64_t kFloat = int64_t(sizeof(float));

std::string Seconds(double s) {
  char t[32];
  std::snprintf(t, sizeof t, "%g s", s);
  return t;
}

// How long a cancelled receive gets to complete before it is abandoned.
constexpr double kCancelWaitS = 0.5;

class MpiTransport : public Transport {
 public:
  MpiTransport(int rank, int ranks, std::vector<uint64_t> tags, const MpiTransportOptions& o)
      : rank_(rank),
        ranks_(ranks),
        tags_(std::move(tags)),
        options_(o),
        pacer_(ranks, o.link_gbps, o.link_latency_us),
        inter_pacer_(ranks, o.link_gbps > 0 ? o.inter_gbps : 0, o.inter_latency_us) {}

  ~MpiTransport() override {
    // A finished run waits for its last sends; an aborted one leaves them
    // (the job is ending) rather than wait on a peer that is gone.
    std::lock_guard<std::mutex> lock(mu_);
    for (Outgoing& o : outgoing_) {
      for (MPI_Request& r : o.requests) {
        if (r == MPI_REQUEST_NULL) continue;
        if (aborted_.load() || WaitBounded(r, options_.timeout_s, &aborted_).end != WaitEnd::kDone) {
          MPI_Request_free(&r);
          o.data.release();  // MPI may still read it
          MarkRequestsAbandoned();
        }
      }
    }
    // In-place sends left unsettled belong to a run that failed; their
    // memory is the caller's, so MPI is only told to forget the requests.
    for (auto& [ticket, o] : in_place_) {
      for (MPI_Request& r : o.requests) {
        if (r != MPI_REQUEST_NULL) {
          MPI_Request_free(&r);
          MarkRequestsAbandoned();
        }
      }
    }
    // A communicator with requests still in flight is MPI's until the job
    // ends (freeing it left MPI's progress engine a dangling pointer).
    if (comm_ != MPI_COMM_NULL && !RequestsAbandoned()) MPI_Comm_free(&comm_);
  }

  Status Init() {
    int tag_ub = 0, found = 0, *attr = nullptr;
    BRAID_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &found));
    tag_ub = found ? *attr : 32767;
    if (int64_t(tags_.size()) > tag_ub) {
      return Status::Invalid("the plan uses " + std::to_string(tags_.size()) + " transfer tags; MPI allows " +
                             std::to_string(tag_ub));
    }
    // The new communicator is written when the duplication completes: into
    // a slot of its own, which a duplication given up (timed out) keeps.
    auto slot = std::make_unique<MPI_Comm>(MPI_COMM_NULL);
    MPI_Request req;
    BRAID_MPI(MPI_Comm_idup(MPI_COMM_WORLD, slot.get(), &req));
    const WaitOutcome w = WaitBounded(req, options_.timeout_s, nullptr);
    if (w.end != WaitEnd::kDone) {
      (void)slot.release();  // MPI's until the job ends
      MarkRequestsAbandoned();
    }
    if (w.end == WaitEnd::kFailed) return w.status;
    if (w.end != WaitEnd::kDone)
      return Status::Internal("transport setup: the other ranks did not join within " + Seconds(options_.timeout_s));
    comm_ = *slot;
    BRAID_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    return Status::Ok();
  }

  Status Send(int src, int dst, uint64_t tag, const float* data, int64_t count) override {
    return SendCopy(src, dst, tag, data, count, MPI_FLOAT, kFloat);
  }

  Status SendBytes(int src, int dst, uint64_t tag, const uint8_t* data, int64_t bytes) override {
    return SendCopy(src, dst, tag, data, bytes, MPI_BYTE, 1);
  }

  Status SendInPlace(int src, int dst, uint64_t tag, const float* data, int64_t count, PendingSends& pending) override {
    BRAID_RETURN_IF_ERROR(CheckRoute(src, dst, rank_, "send"));
    BRAID_ASSIGN_OR_RETURN(auto mpi_tag, MpiTag(tag));
    BRAID_RETURN_IF_ERROR(Pace(src, dst, count * kFloat));
    InPlace o{{}, dst, tag, count};
    Status posted = PostPieces(dst, mpi_tag, data, count, MPI_FLOAT, kFloat, nullptr, o.requests);
    // Pieces already posted stay tracked even when a later one failed.
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t ticket = next_ticket_++;
    in_place_.emplace(ticket, std::move(o));
    pending.tickets.push_back(ticket);
    return posted;
  }

  Status Settle(PendingSends& pending) override {
    const auto deadline = DeadlineAfter(options_.timeout_s);
    Status first;
    for (const uint64_t ticket : pending.tickets) {
      InPlace o;
      {
        std::lock_guard<std::mutex> lock(mu_);
        const auto it = in_place_.find(ticket);
        if (it == in_place_.end()) continue;
        o = std::move(it->second);
        in_place_.erase(it);
      }
      Status s = first.ok() ? WaitSent(o, deadline) : Status::Internal("transport aborted");
      if (!s.ok()) {
        Forget(o);
        std::lock_guard<std::mutex> lock(mu_);
        forgot_in_place_ = true;
        if (first.ok()) first = std::move(s);
      }
    }
    pending.tickets.clear();
    return first;
  }

  Status Recv(int dst, int src, uint64_t tag, float* data, int64_t count) override {
    return RecvPieces(dst, src, tag, data, count, MPI_FLOAT, kFloat);
  }

  Status RecvBytes(int dst, int src, uint64_t tag, uint8_t* data, int64_t bytes) override {
    return RecvPieces(dst, src, tag, data, bytes, MPI_BYTE, 1);
  }

  void Abort() override { aborted_.store(true, std::memory_order_release); }

  bool HoldsCallerMemory() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return forgot_in_place_ || !in_place_.empty();  // the unsettled are forgotten by the destructor
  }

 private:
  using Clock = std::chrono::steady_clock;

  struct Outgoing {  // an eager send: the bytes are our copy
    std::unique_ptr<uint8_t[]> data;
    std::vector<MPI_Request> requests;
  };
  struct InPlace {  // a send from the caller's memory, until settled
    std::vector<MPI_Request> requests;
    int dst = -1;
    uint64_t tag = 0;
    int64_t count = 0;  // floats
  };

  // An eager send of `count` elements of `type` (`size` bytes each).
  Status SendCopy(int src, int dst, uint64_t tag, const void* data, int64_t count, MPI_Datatype type, int64_t size) {
    BRAID_RETURN_IF_ERROR(CheckRoute(src, dst, rank_, "send"));
    BRAID_ASSIGN_OR_RETURN(auto mpi_tag, MpiTag(tag));
    Reclaim();
    BRAID_RETURN_IF_ERROR(Pace(src, dst, count * size));
    Outgoing o;
    o.data = std::make_unique<uint8_t[]>(size_t(std::max<int64_t>(count * size, 1)));
    // Copy piece i+1 while piece i travels.
    BRAID_RETURN_IF_ERROR(PostPieces(dst, mpi_tag, data, count, type, size, o.data.get(), o.requests));
    std::lock_guard<std::mutex> lock(mu_);
    outgoing_.push_back(std::move(o));
    return Status::Ok();
  }

  // Receives `count` elements of `type` (`size` bytes each) into `data`, in
  // the sender's pieces, each wait bounded by the timeout.
  Status RecvPieces(int dst, int src, uint64_t tag, void* data, int64_t count, MPI_Datatype type, int64_t size) {
    BRAID_RETURN_IF_ERROR(CheckRoute(src, dst, rank_, "recv"));
    BRAID_ASSIGN_OR_RETURN(auto mpi_tag, MpiTag(tag));
    const int64_t piece = PieceElems(size);
    std::vector<MPI_Request> reqs;
    std::vector<int64_t> sizes;
    for (int64_t at = 0; at < count || (count == 0 && at == 0); at += piece) {
      const int64_t n = std::min(piece, count - at);
      MPI_Request r;
      BRAID_MPI(MPI_Irecv(static_cast<uint8_t*>(data) + at * size, int(n), type, src, mpi_tag, comm_, &r));
      reqs.push_back(r);
      sizes.push_back(n);
      if (count == 0) break;
    }
    const auto deadline = DeadlineAfter(options_.timeout_s);
    for (size_t i = 0; i < reqs.size(); ++i) {
      const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      const WaitOutcome w = WaitBounded(reqs[i], std::max(left, 0.0), &aborted_);
      if (w.end != WaitEnd::kDone) {
        // A cancelled receive must still complete before `data` may go: one
        // that does not (its message was already on the way) stays MPI's.
        for (size_t j = i; j < reqs.size(); ++j) {
          if (!CancelAndComplete(reqs[j], kCancelWaitS)) MarkRequestsAbandoned();
        }
        if (w.end == WaitEnd::kFailed) return w.status;
        if (w.end == WaitEnd::kAborted) return Status::Internal("transport aborted");
        return Status::Internal("timed out after " + Seconds(options_.timeout_s) + " waiting for " +
                                std::to_string(count * size) + " bytes from rank " + std::to_string(src) + " (tag " +
                                std::to_string(tag) + ")");
      }
      int got = 0;
      BRAID_MPI(MPI_Get_count(&w.mpi_status, type, &got));
      if (got != sizes[i]) {
        return Status::Internal("recv " + std::to_string(src) + " -> " + std::to_string(dst) + " tag " +
                                std::to_string(tag) + ": expected " + std::to_string(count) +
                                (size == kFloat ? " floats" : " bytes") + ", a piece of the message is short");
      }
    }
    const double latency_us = OnOneNode(src, dst) ? options_.link_latency_us : options_.inter_latency_us;
    if (Pacer(src, dst).enabled() && latency_us > 0) {
      BRAID_RETURN_IF_ERROR(
          SleepUntil(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double, std::micro>(latency_us))));
    }
    return Status::Ok();
  }

  // Posts MPI_Isend of `count` elements of `type` (`size` bytes each) in
  // pieces of PieceElems(size). With `staging`, each piece is first copied
  // there and sent from the copy.
  Status PostPieces(int dst, int mpi_tag, const void* data, int64_t count, MPI_Datatype type, int64_t size,
                    uint8_t* staging, std::vector<MPI_Request>& requests) {
    const int64_t piece = PieceElems(size);
    for (int64_t at = 0; at < count || (count == 0 && at == 0); at += piece) {
      const int64_t n = std::min(piece, count - at);
      const void* from = static_cast<const uint8_t*>(data) + at * size;
      if (staging != nullptr) {
        if (n > 0) std::memcpy(staging + at * size, from, size_t(n * size));
        from = staging + at * size;
      }
      MPI_Request r;
      BRAID_MPI(MPI_Isend(from, int(n), type, dst, mpi_tag, comm_, &r));
      requests.push_back(r);
      if (count == 0) break;
    }
    return Status::Ok();
  }

  // The link is busy until the bytes have left it; the receiver adds the latency.
  Status Pace(int src, int dst, int64_t bytes) {
    LinkPacer& pacer = Pacer(src, dst);
    if (!pacer.enabled()) return Status::Ok();
    return SleepUntil(pacer.Reserve(src, dst, bytes).finish);
  }

  Status WaitSent(InPlace& o, Clock::time_point deadline) {
    for (MPI_Request& r : o.requests) {
      if (r == MPI_REQUEST_NULL) continue;
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      const WaitOutcome w = WaitBounded(r, std::max(left, 0.0), &aborted_);
      if (w.end == WaitEnd::kDone) continue;
      if (w.end == WaitEnd::kFailed) return w.status;
      if (w.end == WaitEnd::kAborted) return Status::Internal("transport aborted");
      return Status::Internal("timed out after " + Seconds(options_.timeout_s) + " waiting for rank " +
                              std::to_string(o.dst) + " to take " + std::to_string(o.count * kFloat) + " bytes (tag " +
                              std::to_string(o.tag) + ")");
    }
    return Status::Ok();
  }

  // A send that will not be waited for: MPI forgets the request (the run failed).
  static void Forget(InPlace& o) {
    for (MPI_Request& r : o.requests) {
      if (r == MPI_REQUEST_NULL) continue;
      MarkRequestsAbandoned();
      MPI_Request_free(&r);
    }
  }

  bool OnOneNode(int a, int b) const {
    const int per = options_.ranks_per_node;
    return per <= 0 || a / per == b / per;
  }
  LinkPacer& Pacer(int src, int dst) { return OnOneNode(src, dst) ? pacer_ : inter_pacer_; }

  int64_t PieceElems(int64_t size) const { return std::max<int64_t>(1, options_.piece_bytes / size); }

  Result<int> MpiTag(uint64_t tag) const {
    const auto it = std::lower_bound(tags_.begin(), tags_.end(), tag);
    if (it == tags_.end() || *it != tag) {
      return Status::Internal("transport: tag " + std::to_string(tag) + " is not one of the plan's transfers");
    }
    return int(it - tags_.begin());
  }

  Status CheckRoute(int src, int dst, int me, const char* what) const {
    const int mine = std::string(what) == "send" ? src : dst;
    if (src < 0 || src >= ranks_ || dst < 0 || dst >= ranks_ || mine != me) {
      return Status::Internal(std::string("transport: ") + what + " " + std::to_string(src) + " -> " +
                              std::to_string(dst) + " does not start or end at this process's rank " +
                              std::to_string(me));
    }
    if (aborted_.load(std::memory_order_acquire)) return Status::Internal("transport aborted");
    return Status::Ok();
  }

  // Frees the staging buffers of completed sends.
  void Reclaim() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = outgoing_.begin(); it != outgoing_.end();) {
      int done = 0;
      MPI_Testall(int(it->requests.size()), it->requests.data(), &done, MPI_STATUSES_IGNORE);
      it = done ? outgoing_.erase(it) : std::next(it);
    }
  }

  Status SleepUntil(std::chrono::steady_clock::time_point t) {
    while (std::chrono::steady_clock::now() < t) {
      if (aborted_.load(std::memory_order_acquire)) return Status::Internal("transport aborted");
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(t - std::chrono::steady_clock::now(),
                                                                                std::chrono::milliseconds(10)));
    }
    return Status::Ok();
  }

  int rank_, ranks_;
  std::vector<uint64_t> tags_;
  MpiTransportOptions options_;
  LinkPacer pacer_;        // pairs on one node
  LinkPacer inter_pacer_;  // pairs on different nodes
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::atomic<bool> aborted_{false};
  mutable std::mutex mu_;
  std::list<Outgoing> outgoing_;
  std::map<uint64_t, InPlace> in_place_;  // by ticket
  bool forgot_in_place_ = false;          // an in-place send was left to MPI (guarded by mu_)
  uint64_t next_ticket_ = 0;
};

}  // namespace

std::vector<uint64_t> PlanTransportTags(const Plan& plan) {
  std::vector<uint64_t> tags;
  const int p = plan.tp();
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv) tags.push_back(uint64_t(s.match));
      if (s.kind == StepKind::kCollective) {
        // All-reduce uses 2(P−1) ring steps, the others P−1.
        for (int i = 0; i < 2 * std::max(p - 1, 1); ++i) tags.push_back(CollectiveTag(s.match, i));
      }
    }
  }
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}

Result<std::unique_ptr<Transport>> MakeMpiTransport(int rank, int ranks, std::vector<uint64_t> tags,
                                                    const MpiTransportOptions& options) {
  if (!(options.timeout_s > 0)) return Status::Invalid("transport timeout must be positive");
  auto t = std::make_unique<MpiTransport>(rank, ranks, std::move(tags), options);
  BRAID_RETURN_IF_ERROR(t->Init());
  return std::unique_ptr<Transport>(std::move(t));
}

CpuProcessBackend::TransportFactory MpiTransportFactory(double timeout_s, NodeLinks nodes) {
  return [timeout_s, nodes](const Plan& plan, int rank, const CpuBackendOptions& cpu) {
    MpiTransportOptions o;
    o.timeout_s = timeout_s;
    o.link_gbps = cpu.link_gbps;
    o.link_latency_us = cpu.link_latency_us;
    o.ranks_per_node = nodes.ranks_per_node;
    o.inter_gbps = cpu.link_gbps * nodes.bandwidth_ratio;
    o.inter_latency_us = cpu.link_latency_us * nodes.latency_ratio;
    return MakeMpiTransport(rank, plan.tp(), PlanTransportTags(plan), o);
  };
}

}  // namespace braid
