#include "ce_window.h"

#include <algorithm>
#include <string>

namespace braid::cuda {

namespace {

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

CeWindow CeWindowOf(const std::vector<TransferLayout>& layouts, size_t esize) {
  size_t flags = 0, inbox = 0;
  for (const TransferLayout& t : layouts) {
    flags = std::max(flags, size_t(t.flags) * sizeof(uint32_t));
    inbox = std::max(inbox, size_t(t.inbox_elems) * esize);
  }
  CeWindow w;
  w.flags_bytes = flags;
  w.inbox_offset = RoundUp(std::max<size_t>(flags, 4), 256);
  // Whole 4 KiB pages: NCCL_WIN_REQUIRED_ALIGNMENT is 4096.
  w.bytes = RoundUp(w.inbox_offset + std::max<size_t>(inbox, 1), 4096);
  return w;
}

Status AgreeAcrossRanks(Bootstrap& boot, const Status& mine) {
  // Empty: ok; else the kind (1 Invalid, 2 other) and the message.
  const std::string text =
      mine.ok() ? std::string() : std::string(1, mine.is_user_error() ? '\1' : '\2') + mine.message();
  const Bytes b(text.begin(), text.end());
  BRAID_ASSIGN_OR_RETURN(auto all, boot.AllGather(b));
  for (const Bytes& r : all) {
    if (r.empty()) continue;
    const std::string message(r.begin() + 1, r.end());
    return r[0] == 1 ? Status::Invalid(message) : Status::Internal(message);
  }
  return Status::Ok();
}

Status SetUpPeerInboxes(RankState& st, PeerMemory& peers, const CeWindow& win, DevPtr& window) {
  BRAID_ASSIGN_OR_RETURN(auto w, peers.Allocate(win.bytes));
  window = w;
  char* base = static_cast<char*>(window);
  st.flags = base;
  st.inbox = base + win.inbox_offset;
  // Zero before any peer can raise a flag: the pointer exchange below is
  // collective, and writes start only in the first iteration after it.
  const std::vector<uint8_t> zero(win.inbox_offset, 0);
  BRAID_RETURN_IF_ERROR(st.api.cuda->Upload(window, zero.data(), zero.size()));
  // NCCL's registration returns once every rank registered; the fake's does
  // not wait, so meet here before asking for the peers' addresses.
  BRAID_RETURN_IF_ERROR(st.api.boot->Barrier());
  BRAID_ASSIGN_OR_RETURN(auto all, peers.PeerPointers({window}));
  const std::vector<DevPtr>& ptrs = all[0];
  Status mapped = Status::Ok();
  st.peer_flags.clear();
  st.peer_inbox.clear();
  for (size_t q = 0; q < ptrs.size(); ++q) {
    if (ptrs[q] == nullptr && mapped.ok()) {
      mapped = Status::Invalid("`comm_engine` ce: rank " + std::to_string(st.rank) + "'s GPU cannot map rank " +
                               std::to_string(q) +
                               "'s memory (NCCL puts them in no common NVLink/P2P team); use `comm_engine` sm");
    }
    st.peer_flags.push_back(ptrs[q]);
    st.peer_inbox.push_back(ptrs[q] == nullptr ? nullptr : static_cast<char*>(ptrs[q]) + win.inbox_offset);
  }
  return AgreeAcrossRanks(*st.api.boot, mapped);
}

}  // namespace braid::cuda
