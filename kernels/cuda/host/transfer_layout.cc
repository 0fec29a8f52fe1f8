#include "transfer_layout.h"

namespace braid::cuda {

int64_t RegionElems(const RankPlan& rp, const Region& r) { return r.total_rows() * rp.buffers[size_t(r.buffer)].cols; }

int64_t CollectivePieceElems(const RankPlan& rp, const Step& s) {
  return s.collective == CollectiveKind::kReduceScatter ? RegionElems(rp, s.c) : RegionElems(rp, s.a);
}

TransferLayout LayoutTransfers(const RankPlan& rp, int ranks) {
  TransferLayout t;
  const size_t n = rp.steps.size();
  t.inbox_off.assign(n, -1);
  t.slot_elems.assign(n, 0);
  t.flag.assign(n, -1);
  t.stage_off.assign(n, -1);
  for (const Step& s : rp.steps) {
    const size_t i = size_t(s.id);
    switch (s.kind) {
      case StepKind::kRecv:
        t.inbox_off[i] = t.inbox_elems;
        t.slot_elems[i] = RegionElems(rp, s.c);
        t.inbox_elems += t.slot_elems[i];
        t.flag[i] = t.flags++;
        t.recv_of[{s.peer, s.match}] = s.id;
        t.stage_off[i] = t.stage_elems;
        t.stage_elems += RegionElems(rp, s.c);
        break;
      case StepKind::kSend:
        t.stage_off[i] = t.stage_elems;
        t.stage_elems += RegionElems(rp, s.a);
        break;
      case StepKind::kCollective:
        t.slot_elems[i] = CollectivePieceElems(rp, s);
        t.inbox_off[i] = t.inbox_elems;
        t.inbox_elems += t.slot_elems[i] * ranks;
        t.flag[i] = t.flags;
        t.flags += ranks;
        t.collective_of[s.match] = s.id;
        t.stage_off[i] = t.stage_elems;
        t.stage_elems += RegionElems(rp, s.a) + RegionElems(rp, s.c);
        break;
      default:
        break;
    }
  }
  return t;
}

}  // namespace braid::cuda
