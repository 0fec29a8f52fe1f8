// Collective decisions every launcher shares: agreeing on a status, and
// ending the job with one message.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "braid/launcher.h"
#include "braid/status_context.h"

namespace braid {

namespace {

Blob EncodeStatus(StatusCode code, const std::string& message) {
  Blob b;
  b.reserve(message.size() + 1);
  b.push_back(uint8_t(code));
  for (char c : message) b.push_back(uint8_t(c));
  return b;
}

Blob EncodeStatus(const Status& s) { return EncodeStatus(s.code(), s.message()); }

Status DecodeStatus(const Blob& b) {
  if (b.empty() || b[0] > uint8_t(StatusCode::kInternal)) return Status::Internal("damaged status from a rank");
  return StatusOf(StatusCode(b[0]), std::string(b.begin() + 1, b.end()));
}

}  // namespace

Status AgreeOnStatus(Launcher& launcher, const Status& mine) {
  BRAID_ASSIGN_OR_RETURN(auto all, launcher.Gather(EncodeStatus(mine)));
  Blob verdict = EncodeStatus(Status::Ok());
  if (launcher.is_root()) {
    int failed = 0, first = -1;
    for (size_t r = 0; r < all.size(); ++r) {
      if (all[r].empty() || all[r][0] != 0) {
        ++failed;
        if (first < 0) first = int(r);
      }
    }
    if (first >= 0) {
      const Status s = DecodeStatus(all[size_t(first)]);
      verdict = failed < launcher.world_size() && !s.ok()
                    ? EncodeStatus(WithContext(s, "rank " + std::to_string(first)))
                    : EncodeStatus(s);
    }
  }
  BRAID_RETURN_IF_ERROR(launcher.Broadcast(verdict));
  return DecodeStatus(verdict);
}

Status SameAsRank0(Launcher& launcher, uint64_t value, const std::string& differs) {
  Blob root(sizeof value);
  std::memcpy(root.data(), &value, sizeof value);
  BRAID_RETURN_IF_ERROR(launcher.Broadcast(root));
  uint64_t theirs = 0;
  if (root.size() == sizeof theirs) std::memcpy(&theirs, root.data(), sizeof theirs);
  return theirs == value ? Status::Ok() : Status::Invalid(differs);
}

void AbortJob(Launcher& launcher, const std::string& message, int exit_code) {
  const int r = launcher.rank();
  if (r > 0) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(r, 10) * 500));
  launcher.Abort(message, exit_code);
  std::_Exit(exit_code);  // Abort does not return
}

int RankFromEnvironment() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* s = std::getenv(v)) return std::atoi(s);
  }
  return 0;
}

}  // namespace braid
