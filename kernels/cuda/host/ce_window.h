// The copy-engine (flags) transport's memory on each rank: one window that
// holds the rank's flags and, after them, its inbox. Peers copy into the
// inbox and raise the flags through their own addresses of it, which come
// from PeerMemory: NCCL symmetric windows when the ranks are on separate GPUs
// (threads or processes), plain device buffers in loopback.
//
// Every rank allocates the same size, the largest any rank needs, since NCCL
// registers a window collectively with one size on every rank.
#pragma once

#include <cstddef>
#include <vector>

#include "braid/peer_memory.h"
#include "rank_state.h"
#include "transfer_layout.h"

namespace braid::cuda {

struct CeWindow {
  size_t flags_bytes = 0;   // uint32 flags at offset 0 (4-byte aligned for cuStreamWaitValue32)
  size_t inbox_offset = 0;  // 256-byte aligned, after the flags
  size_t bytes = 0;         // the window's size, equal on every rank
};

CeWindow CeWindowOf(const std::vector<TransferLayout>& layouts, size_t esize);

// Collective: allocates this rank's window from `peers`, zeroes its flags,
// and fills st.inbox/st.flags and every rank's peer_inbox/peer_flags. When
// some rank cannot map a peer's window, every rank returns the same Invalid
// line naming the pair. `window` receives the allocation (for Free).
Status SetUpPeerInboxes(RankState& st, PeerMemory& peers, const CeWindow& win, DevPtr& window);

// Every rank's `mine`; all return the first failure in rank order (Invalid
// stays Invalid, anything else becomes Internal), or Ok. Collective.
Status AgreeAcrossRanks(Bootstrap& boot, const Status& mine);

}  // namespace braid::cuda
