#include "braid/launcher_bootstrap.h"

#include <cstring>

namespace braid::cuda {

namespace {

// resize + memcpy rather than insert: g++ 12 warns wrongly about insert's memmove.
void PutBytes(Bytes& out, const void* p, size_t n) {
  const size_t at = out.size();
  out.resize(at + n);
  if (n > 0) std::memcpy(out.data() + at, p, n);
}

void PutU64(Bytes& out, uint64_t v) { PutBytes(out, &v, sizeof v); }

bool GetU64(const Bytes& in, size_t& at, uint64_t& v) {
  if (in.size() - at < sizeof v) return false;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return true;
}

}  // namespace

Bytes PackBlobs(const std::vector<Bytes>& blobs) {
  Bytes out;
  PutU64(out, blobs.size());
  for (const Bytes& b : blobs) {
    PutU64(out, b.size());
    PutBytes(out, b.data(), b.size());
  }
  return out;
}

Result<std::vector<Bytes>> UnpackBlobs(const Bytes& packed) {
  const Status damaged = Status::Internal("bootstrap: a gathered message is damaged");
  size_t at = 0;
  uint64_t count = 0;
  if (!GetU64(packed, at, count) || count > packed.size()) return damaged;
  std::vector<Bytes> blobs;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = 0;
    if (!GetU64(packed, at, len) || len > packed.size() - at) return damaged;
    blobs.emplace_back(packed.begin() + ptrdiff_t(at), packed.begin() + ptrdiff_t(at + len));
    at += len;
  }
  if (at != packed.size()) return damaged;
  return blobs;
}

Status LauncherBootstrap::Aborted() const {
  return Status::Internal("rank " + std::to_string(rank()) + ": run aborted: " + abort_reason_);
}

Status LauncherBootstrap::Broadcast(Bytes& data, int root) {
  if (!abort_reason_.empty()) return Aborted();
  if (root != 0) return Status::Internal("bootstrap: the launcher broadcasts from rank 0 only");
  return launcher_.Broadcast(data);
}

Result<std::vector<Bytes>> LauncherBootstrap::AllGather(const Bytes& mine) {
  if (!abort_reason_.empty()) return Aborted();
  BRAID_ASSIGN_OR_RETURN(auto gathered, launcher_.Gather(mine));
  Bytes packed = launcher_.is_root() ? PackBlobs(gathered) : Bytes{};
  BRAID_RETURN_IF_ERROR(launcher_.Broadcast(packed));
  auto all = UnpackBlobs(packed);
  if (all.ok() && int(all->size()) != size()) {
    return Status::Internal("bootstrap: gathered " + std::to_string(all->size()) + " ranks of " +
                            std::to_string(size()));
  }
  return all;
}

Status LauncherBootstrap::Barrier() {
  if (!abort_reason_.empty()) return Aborted();
  return launcher_.Barrier();
}

void LauncherBootstrap::Abort(const std::string& reason) {
  if (abort_reason_.empty()) abort_reason_ = reason.empty() ? "aborted" : reason;
}

}  // namespace braid::cuda
