// The cuda backend's Bootstrap over the job's Launcher (braid/launcher.h):
// what a process of an mpirun job uses to broadcast the ncclUniqueId and to
// meet its peers at barriers. One rank per process.
//
// Abort cannot release a peer process that is already waiting inside a
// collective; that peer's wait ends at the launcher's timeout, and the
// caller of a failed run ends the job (AbortJob) so it does not come to
// that. After Abort every call of this process fails at once.
#pragma once

#include <string>

#include "braid/bootstrap.h"
#include "braid/launcher.h"

namespace braid::cuda {

class LauncherBootstrap : public Bootstrap {
 public:
  // `launcher` outlives this object.
  explicit LauncherBootstrap(Launcher& launcher) : launcher_(launcher) {}
  int rank() const override { return launcher_.rank(); }
  int size() const override { return launcher_.world_size(); }
  // Only root 0: the launcher broadcasts from rank 0.
  Status Broadcast(Bytes& data, int root) override;
  // A gather to rank 0 and a broadcast of the packed result.
  Result<std::vector<Bytes>> AllGather(const Bytes& mine) override;
  Status Barrier() override;
  void Abort(const std::string& reason) override;

 private:
  Status Aborted() const;
  Launcher& launcher_;
  std::string abort_reason_;
};

// The gathered blobs as one (a count, then each length and its bytes), and
// back; Unpack checks every length.
Bytes PackBlobs(const std::vector<Bytes>& blobs);
Result<std::vector<Bytes>> UnpackBlobs(const Bytes& packed);

}  // namespace braid::cuda
