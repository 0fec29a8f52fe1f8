// Ranks as threads: a generation-counted barrier under one mutex; broadcast
// and all-gather go through a shared slot table between two barriers.
#include <algorithm>
#include <utility>

#include "braid/bootstrap.h"

namespace braid::cuda {

struct InProcessGroup::Shared {
  int ranks = 0;
  std::chrono::milliseconds timeout{0};
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  uint64_t generation = 0;
  std::string abort_reason;  // non-empty once aborted
  std::vector<Bytes> slots;

  Status Barrier(int rank) {
    std::unique_lock<std::mutex> lock(mu);
    if (!abort_reason.empty()) return Aborted(rank);
    const uint64_t gen = generation;
    if (++arrived == ranks) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return Status::Ok();
    }
    const bool done = cv.wait_for(lock, timeout, [&] { return generation != gen || !abort_reason.empty(); });
    if (generation != gen) return Status::Ok();
    if (!done) {
      abort_reason = "rank " + std::to_string(rank) + " waited " + std::to_string(timeout.count()) +
                     " ms for the other ranks at a barrier";
      cv.notify_all();
    }
    return Aborted(rank);
  }
  Status Aborted(int rank) const {
    return Status::Internal("rank " + std::to_string(rank) + ": run aborted: " + abort_reason);
  }
};

namespace {

class GroupMember : public Bootstrap {
 public:
  GroupMember(std::shared_ptr<InProcessGroup::Shared> s, int rank) : s_(std::move(s)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_->ranks; }

  Status Broadcast(Bytes& data, int root) override {
    if (rank_ == root) Put(data);
    BRAID_RETURN_IF_ERROR(s_->Barrier(rank_));
    if (rank_ != root) {
      std::lock_guard<std::mutex> lock(s_->mu);
      data = s_->slots[size_t(root)];
    }
    return s_->Barrier(rank_);  // nobody overwrites the slot before all read it
  }

  Result<std::vector<Bytes>> AllGather(const Bytes& mine) override {
    Put(mine);
    BRAID_RETURN_IF_ERROR(s_->Barrier(rank_));
    std::vector<Bytes> all;
    {
      std::lock_guard<std::mutex> lock(s_->mu);
      all = s_->slots;
    }
    BRAID_RETURN_IF_ERROR(s_->Barrier(rank_));
    return all;
  }

  Status Barrier() override { return s_->Barrier(rank_); }

  void Abort(const std::string& reason) override {
    std::lock_guard<std::mutex> lock(s_->mu);
    if (s_->abort_reason.empty()) s_->abort_reason = reason.empty() ? "aborted" : reason;
    s_->cv.notify_all();
  }

 private:
  void Put(const Bytes& data) {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->slots[size_t(rank_)] = data;
  }

  std::shared_ptr<InProcessGroup::Shared> s_;
  int rank_;
};

}  // namespace

InProcessGroup::InProcessGroup(int ranks, std::chrono::milliseconds timeout) : shared_(std::make_shared<Shared>()) {
  shared_->ranks = std::max(1, ranks);
  shared_->timeout = timeout;
  shared_->slots.resize(size_t(shared_->ranks));
  for (int r = 0; r < shared_->ranks; ++r) members_.push_back(std::make_unique<GroupMember>(shared_, r));
}

InProcessGroup::~InProcessGroup() = default;

Bootstrap& InProcessGroup::Member(int rank) { return *members_[size_t(rank)]; }

}  // namespace braid::cuda
