// The launcher over MPI: one rank per process, collectives on a private
// duplicate of MPI_COMM_WORLD, every wait bounded by the launcher's timeout.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <limits>

#include "braid/launcher.h"
#include "braid/mpi_wait.h"

namespace braid {

namespace {

constexpr int kClockTag = 1;
constexpr uint64_t kMaxBlob = uint64_t{64} << 20;

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class MpiLauncher : public Launcher {
 public:
  explicit MpiLauncher(double timeout_s) : timeout_s_(timeout_s) {}
  ~MpiLauncher() override {
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
    uint64_t size = blob.size();
    MPI_Request req;
    BRAID_MPI(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, comm_, &req));
    // Only rank 0 sends: a wait on this side is a wait for rank 0.
    const char* from = is_root() ? nullptr : "rank 0";
    BRAID_RETURN_IF_ERROR(Wait(req, "broadcast (size)", from));
    if (size > kMaxBlob)
      return Status::Internal("broadcast: blob of " + std::to_string(size) + " bytes is over 64 MiB");
    blob.resize(size_t(size));
    if (size == 0) return Status::Ok();
    BRAID_MPI(MPI_Ibcast(blob.data(), int(size), MPI_BYTE, 0, comm_, &req));
    return Wait(req, "broadcast", from);
  }

  Result<std::vector<Blob>> Gather(const Blob& blob) override {
    if (blob.size() > std::numeric_limits<int>::max()) return Status::Internal("gather: blob over 2 GiB");
    const int mine = int(blob.size());
    std::vector<int> sizes(size_t(is_root() ? size_ : 0));
    MPI_Request req;
    BRAID_MPI(MPI_Igather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm_, &req));
    BRAID_RETURN_IF_ERROR(Wait(req, "gather (sizes)"));
    std::vector<int> displs(sizes.size(), 0);
    int64_t total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      displs[i] = int(total);
      total += sizes[i];
    }
    if (total > std::numeric_limits<int>::max()) return Status::Internal("gather: over 2 GiB in all");
    Blob all(static_cast<size_t>(total));
    BRAID_MPI(
        MPI_Igatherv(blob.data(), mine, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE, 0, comm_, &req));
    BRAID_RETURN_IF_ERROR(Wait(req, "gather"));
    std::vector<Blob> out;
    for (size_t i = 0; i < sizes.size(); ++i) {
      out.emplace_back(all.begin() + displs[i], all.begin() + displs[i] + sizes[i]);
    }
    return out;
  }

  Status Barrier() override {
    MPI_Request req;
    BRAID_MPI(MPI_Ibarrier(comm_, &req));
    return Wait(req, "barrier");
  }

  Result<std::vector<ClockOffset>> MeasureClockOffsets(int rounds) override {
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
  // `waited_for`: whom the call waits on (null: every other rank).
  Status Wait(MPI_Request& req, const char* what, const char* waited_for = nullptr, bool spin = false) {
    const WaitOutcome w = WaitBounded(req, timeout_s_, nullptr, spin);
    if (w.end == WaitEnd::kFailed) return w.status;
    if (w.end == WaitEnd::kTimedOut) {
      const std::string others = size_ == 2 ? "rank " + std::to_string(1 - rank_) : "the other ranks";
      return Status::Internal(std::string(what) + ": rank " + std::to_string(rank_) + " waited " + TimeoutText() +
                              " for " + (waited_for != nullptr ? waited_for : others));
    }
    return Status::Ok();
  }

  // Sends *out or receives into *in (one int64) with `peer`, bounded.
  Status Exchange(const int64_t* out, int64_t* in, int peer, const char* what) {
    MPI_Request req;
    if (out != nullptr) {
      BRAID_MPI(MPI_Isend(out, 1, MPI_INT64_T, peer, kClockTag, comm_, &req));
    } else {
      BRAID_MPI(MPI_Irecv(in, 1, MPI_INT64_T, peer, kClockTag, comm_, &req));
    }
    const std::string peer_text = "rank " + std::to_string(peer);
    return Wait(req, what, peer_text.c_str(), /*spin=*/true);
  }

  std::string TimeoutText() const {
    char s[32];
    std::snprintf(s, sizeof s, "%g s", timeout_s_);
    return s;
  }

  double timeout_s_;
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
