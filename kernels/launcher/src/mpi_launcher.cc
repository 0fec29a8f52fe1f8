// The launcher over MPI: one rank per process, collectives on a private
// duplicate of MPI_COMM_WORLD, every wait bounded by the launcher's timeout.
//
// A wait that times out leaves its request in flight: a nonblocking
// collective cannot be cancelled, and a later MPI call (another wait,
// MPI_Finalize) may still progress it and write into its buffers. So every
// request's buffers belong to the launcher (an Inflight), never to a
// caller's stack or blob: on success the result is copied out; on a timeout
// or failure the Inflight is kept until the process ends, and the launcher
// then ends the job through MPI_Abort instead of MPI_Finalize, which would
// wait on (or progress into) what the other ranks never finish. A timeout
// at 1e-9 s corrupted the heap and crashed in MPI_Finalize about one run in
// two before.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "braid/launcher.h"
#include "braid/mpi_wait.h"

namespace braid {

namespace {

constexpr int kClockTag = 1;
constexpr uint64_t kMaxBlob = uint64_t{64} << 20;

// One request and everything MPI may still read or write for it.
struct Inflight {
  MPI_Request request = MPI_REQUEST_NULL;
  uint64_t word = 0;           // a size broadcast
  int64_t clock = 0;           // a clock ping or pong
  int count = 0;               // this rank's gather size
  std::vector<int> counts;     // the root's gather sizes
  std::vector<int> displs;     // and offsets
  std::vector<char> bytes;     // a blob sent or received
  std::vector<char> gathered;  // the root's gathered blobs
};

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class MpiLauncher : public Launcher {
 public:
  explicit MpiLauncher(double timeout_s) : timeout_s_(timeout_s) {}
  ~MpiLauncher() override {
    if (!abandoned_.empty() || RequestsAbandoned()) {
      // Requests still in flight (see the file comment): the job cannot end
      // cleanly. Rank 0 has printed why and ends it; another rank gives rank
      // 0 a while to (its own waits end within the timeout, here at most 10
      // s later), so that the job's one line is not lost to an abort that
      // kills rank 0 first.
      std::fflush(stdout);
      std::fflush(stderr);
      if (rank_ != 0) {
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(timeout_s_, 10.0) + 2.0));
      }
      MPI_Abort(MPI_COMM_WORLD, 1);
      std::_Exit(1);
    }
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

  Status Init() {
    int initialized = 0;
    BRAID_MPI(MPI_Initialized(&initialized));
    if (initialized) return Status::Internal("MPI is already initialised in this process");
    int provided = 0;
    BRAID_MPI(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
    if (provided < MPI_THREAD_MULTIPLE) {
      return Status::Unavailable("this MPI library does not support MPI_THREAD_MULTIPLE (lanes are threads)");
    }
    BRAID_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    BRAID_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
    BRAID_MPI(MPI_Comm_rank(comm_, &rank_));
    BRAID_MPI(MPI_Comm_size(comm_, &size_));
    MPI_Comm local = MPI_COMM_NULL;
    BRAID_MPI(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
    BRAID_MPI(MPI_Comm_rank(local, &local_rank_));
    BRAID_MPI(MPI_Comm_free(&local));
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    BRAID_MPI(MPI_Get_processor_name(name, &len));
    host_ = std::string(name, size_t(len));
    return Status::Ok();
  }

  int world_size() const override { return size_; }
  int rank() const override { return rank_; }
  int local_rank() const override { return local_rank_; }
  std::string host_name() const override { return host_; }

  Status Broadcast(Blob& blob) override {
    BRAID_RETURN_IF_ERROR(NotBroken("broadcast"));
    const char* from = is_root() ? nullptr : "rank 0";  // only rank 0 sends
    auto sized = std::make_unique<Inflight>();
    sized->word = blob.size();
    BRAID_MPI(MPI_Ibcast(&sized->word, 1, MPI_UINT64_T, 0, comm_, &sized->request));
    BRAID_RETURN_IF_ERROR(Wait(std::move(sized), "broadcast (size)", from, [&](Inflight& f) {
      if (f.word > kMaxBlob)
        return Status::Internal("broadcast: blob of " + std::to_string(f.word) + " bytes is over 64 MiB");
      blob.resize(size_t(f.word));
      return Status::Ok();
    }));
    if (blob.empty()) return Status::Ok();
    auto data = std::make_unique<Inflight>();
    data->bytes.assign(blob.begin(), blob.end());  // the root's bytes; the others' are overwritten
    BRAID_MPI(MPI_Ibcast(data->bytes.data(), int(data->bytes.size()), MPI_BYTE, 0, comm_, &data->request));
    return Wait(std::move(data), "broadcast", from, [&](Inflight& f) {
      std::memcpy(blob.data(), f.bytes.data(), blob.size());
      return Status::Ok();
    });
  }

  Result<std::vector<Blob>> Gather(const Blob& blob) override {
    BRAID_RETURN_IF_ERROR(NotBroken("gather"));
    if (blob.size() > std::numeric_limits<int>::max()) return Status::Internal("gather: blob over 2 GiB");
    auto sized = std::make_unique<Inflight>();
    sized->count = int(blob.size());
    sized->counts.resize(size_t(is_root() ? size_ : 0));
    BRAID_MPI(MPI_Igather(&sized->count, 1, MPI_INT, sized->counts.data(), 1, MPI_INT, 0, comm_, &sized->request));
    std::vector<int> sizes;
    BRAID_RETURN_IF_ERROR(Wait(std::move(sized), "gather (sizes)", nullptr, [&](Inflight& f) {
      sizes = f.counts;
      return Status::Ok();
    }));
    auto data = std::make_unique<Inflight>();
    data->displs.assign(sizes.size(), 0);
    int64_t total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      data->displs[i] = int(total);
      total += sizes[i];
    }
    if (total > std::numeric_limits<int>::max()) return Status::Internal("gather: over 2 GiB in all");
    data->counts = sizes;
    data->bytes.assign(blob.begin(), blob.end());
    data->gathered.resize(size_t(total));
    BRAID_MPI(MPI_Igatherv(data->bytes.data(), int(data->bytes.size()), MPI_BYTE, data->gathered.data(),
                           data->counts.data(), data->displs.data(), MPI_BYTE, 0, comm_, &data->request));
    std::vector<Blob> out;
    BRAID_RETURN_IF_ERROR(Wait(std::move(data), "gather", nullptr, [&](Inflight& f) {
      for (size_t i = 0; i < sizes.size(); ++i) {
        const auto first = f.gathered.begin() + f.displs[i];
        out.emplace_back(first, first + sizes[i]);
      }
      return Status::Ok();
    }));
    return out;
  }

  Status Barrier() override {
    BRAID_RETURN_IF_ERROR(NotBroken("barrier"));
    auto barrier = std::make_unique<Inflight>();
    BRAID_MPI(MPI_Ibarrier(comm_, &barrier->request));
    return Wait(std::move(barrier), "barrier");
  }

  Result<std::vector<ClockOffset>> MeasureClockOffsets(int rounds) override {
    BRAID_RETURN_IF_ERROR(NotBroken("clock measurement"));
    if (!is_root()) {
      for (int i = 0; i < rounds; ++i) {
        int64_t ping = 0;
        BRAID_RETURN_IF_ERROR(Exchange(nullptr, &ping, 0, "clock ping"));
        const int64_t now = SteadyNowNs();
        BRAID_RETURN_IF_ERROR(Exchange(&now, nullptr, 0, "clock pong"));
      }
      return std::vector<ClockOffset>{};
    }
    std::vector<ClockOffset> offsets(static_cast<size_t>(size_));
    for (int r = 1; r < size_; ++r) {
      int64_t best_rtt = std::numeric_limits<int64_t>::max();
      for (int i = 0; i < rounds; ++i) {
        const int64_t t0 = SteadyNowNs();
        int64_t theirs = 0;
        BRAID_RETURN_IF_ERROR(Exchange(&t0, nullptr, r, "clock ping"));
        BRAID_RETURN_IF_ERROR(Exchange(nullptr, &theirs, r, "clock pong"));
        const int64_t t1 = SteadyNowNs();
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          offsets[size_t(r)] = {theirs - (t0 + (t1 - t0) / 2), (best_rtt + 1) / 2};
        }
      }
    }
    return offsets;
  }

  [[noreturn]] void Abort(const std::string& message, int exit_code) override {
    if (!message.empty()) std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] true
  }

 private:
  // After a wait that did not end, the ranks' collectives no longer pair up
  // (this rank gave one up that the others may still be in): a new one
  // would be matched against it.
  Status NotBroken(const char* what) const {
    if (abandoned_.empty()) return Status::Ok();
    return Status::Internal(std::string(what) + ": rank " + std::to_string(rank_) +
                            " gave up an earlier wait, so the ranks' collectives no longer pair up");
  }

  // Waits for `f`'s request, then hands it to `done`. `waited_for`: whom the
  // call waits on (null: every other rank). A request that does not
  // complete is kept in abandoned_ with its buffers (the file comment).
  template <typename Done>
  Status Wait(std::unique_ptr<Inflight> f, const char* what, const char* waited_for, Done done, bool spin = false) {
    const WaitOutcome w = WaitBounded(f->request, timeout_s_, nullptr, spin);
    if (w.end == WaitEnd::kDone) return done(*f);
    abandoned_.push_back(std::move(f));
    MarkRequestsAbandoned();
    if (w.end == WaitEnd::kFailed) return w.status;
    const std::string others = size_ == 2 ? "rank " + std::to_string(1 - rank_) : "the other ranks";
    return Status::Internal(std::string(what) + ": rank " + std::to_string(rank_) + " waited " + TimeoutText() +
                            " for " + (waited_for != nullptr ? waited_for : others));
  }
  Status Wait(std::unique_ptr<Inflight> f, const char* what) {
    return Wait(std::move(f), what, nullptr, [](Inflight&) { return Status::Ok(); });
  }

  // Sends *out or receives into *in (one int64) with `peer`, bounded.
  Status Exchange(const int64_t* out, int64_t* in, int peer, const char* what) {
    auto f = std::make_unique<Inflight>();
    if (out != nullptr) {
      f->clock = *out;
      BRAID_MPI(MPI_Isend(&f->clock, 1, MPI_INT64_T, peer, kClockTag, comm_, &f->request));
    } else {
      BRAID_MPI(MPI_Irecv(&f->clock, 1, MPI_INT64_T, peer, kClockTag, comm_, &f->request));
    }
    const std::string peer_text = "rank " + std::to_string(peer);
    return Wait(
        std::move(f), what, peer_text.c_str(),
        [in](Inflight& done) {
          if (in != nullptr) *in = done.clock;
          return Status::Ok();
        },
        /*spin=*/true);
  }

  std::string TimeoutText() const {
    char s[32];
    std::snprintf(s, sizeof s, "%g s", timeout_s_);
    return s;
  }

  double timeout_s_;
  std::vector<std::unique_ptr<Inflight>> abandoned_;  // requests left in flight
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string host_;
};

}  // namespace

bool MpiBuiltIn() { return true; }

Result<std::unique_ptr<Launcher>> MakeMpiLauncher(double timeout_s) {
  if (!(timeout_s > 0)) return Status::Invalid("launcher timeout must be positive");
  auto l = std::make_unique<MpiLauncher>(timeout_s);
  BRAID_RETURN_IF_ERROR(l->Init());
  return std::unique_ptr<Launcher>(std::move(l));
}

}  // namespace braid
