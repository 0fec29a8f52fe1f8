// Where transfers land, computed from the plan alone so that every rank knows
// every other rank's layout without asking.
//
// Flags transport (copy engine, loopback): a sender copies straight into a
// slot of the receiver's inbox and then raises the receiver's flag for that
// slot to the iteration's epoch; the receiver waits for the flag and copies
// the slot into place. Sends therefore never wait (the plan checker assumes
// eager sends), and slots are per step, so iterations (separated by a full
// synchronisation) never overwrite a slot still being read. Inbox and flags
// live in one window per rank (ce_window.h). The flag is raised by
// cuStreamWriteValue32 on the sender's stream after its copy (stream order,
// and the write is fenced at system scope) and waited for by
// cuStreamWaitValue32 on the receiver's own memory: no SM is taken. NCCL
// 2.28.9 offers no host-side signal (ncclSignal arrives in 2.29) and its
// device API's LSA primitive is a team-wide barrier inside a kernel.
// NCCL transport: a send is staged (packed) into its own buffer on the lane,
// then sent from a per-lane send queue stream; non-contiguous receives and
// collectives go through staging too.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "braid/plan.h"

namespace braid::cuda {

struct TransferLayout {
  // Flags transport, per step id (-1: none). Recv: its inbox slot and flag.
  // Collective: P slots of slot_elems[s] from inbox_off[s] and P flags from
  // flag[s], one per source rank.
  std::vector<int64_t> inbox_off;
  std::vector<int64_t> slot_elems;
  std::vector<int> flag;
  int64_t inbox_elems = 0;
  int flags = 0;
  // NCCL transport, per step id (-1: none): staging for a send (a), a
  // non-contiguous recv (c), or a collective (send part then recv part).
  std::vector<int64_t> stage_off;
  int64_t stage_elems = 0;

  std::map<std::pair<int, int64_t>, int> recv_of;  // (sender, match) -> recv step
  std::map<int64_t, int> collective_of;            // match -> collective step
};

int64_t RegionElems(const RankPlan& rp, const Region& r);
// Elements one rank contributes to collective `s` (all_gather: a; reduce_scatter: c; all_reduce: a).
int64_t CollectivePieceElems(const RankPlan& rp, const Step& s);

TransferLayout LayoutTransfers(const RankPlan& rp, int ranks);

}  // namespace braid::cuda
