#include "braid/core_schedule_check.h"

#include <string>

#include "gemm/scatter_epilogue.h"

namespace braid::cuda::fused {

namespace {

Status Fail(int rank, const std::string& what) {
  return Status::Internal("GEMM core schedule, rank " + std::to_string(rank) + ": " + what);
}

Status CheckOrder(const gemm::TileScheduler& sched, int rank, const CoreRankSchedule& s) {
  const int64_t tiles = sched.total();
  if (int64_t(s.order.size()) != tiles) {
    return Fail(rank, "hands out " + std::to_string(s.order.size()) + " tiles of " + std::to_string(tiles));
  }
  std::vector<char> seen(size_t(tiles), 0);
  for (int64_t t : s.order) {
    if (t < 0 || t >= tiles) return Fail(rank, "hands out tile " + std::to_string(t) + ", outside the grid");
    if (seen[size_t(t)]++ != 0) return Fail(rank, "hands out tile " + std::to_string(t) + " twice");
  }
  return Status::Ok();
}

Status CheckAgGemm(const gemm::TileScheduler& sched, int ranks, int rank, const CoreRankSchedule& s) {
  const int64_t mb = sched.m / ranks;
  if (int64_t(s.step.size()) != sched.total()) return Fail(rank, "has no arrival step for every tile");
  // 2. one pull per step 1..P-1; 3. the pulls cover every foreign row once, from its owner.
  std::vector<int> raised(size_t(s.steps), 0);
  std::vector<int> arrival(size_t(sched.m), -1);  // the step each row of A is here after
  for (int64_t row = int64_t(rank) * mb; row < int64_t(rank + 1) * mb; ++row) arrival[size_t(row)] = 0;
  for (const CorePull& p : s.pulls) {
    if (p.flag <= 0 || p.flag >= s.steps) return Fail(rank, "a pull raises flag " + std::to_string(p.flag));
    ++raised[size_t(p.flag)];
    if (p.rows <= 0 || p.row0 < 0 || p.row0 + p.rows > sched.m) return Fail(rank, "a pull's rows leave A");
    if (p.src != p.row0 / mb || p.src != (p.row0 + p.rows - 1) / mb || p.src == rank) {
      return Fail(rank, "the pull of rows " + std::to_string(p.row0) + ".. reads rank " + std::to_string(p.src) +
                            ", which does not own them as an input");
    }
    for (int64_t row = p.row0; row < p.row0 + p.rows; ++row) {
      if (arrival[size_t(row)] >= 0) return Fail(rank, "row " + std::to_string(row) + " of A arrives twice");
      arrival[size_t(row)] = p.flag;
    }
  }
  for (int f = 1; f < s.steps; ++f) {
    if (raised[size_t(f)] != 1) {
      return Fail(
          rank, "flag " + std::to_string(f) + " is raised by " + std::to_string(raised[size_t(f)]) + " pulls, not one");
    }
  }
  if (s.steps != ranks)
    return Fail(rank, std::to_string(s.steps) + " arrival steps for " + std::to_string(ranks) + " ranks");
  for (int64_t row = 0; row < sched.m; ++row) {
    if (arrival[size_t(row)] < 0) return Fail(rank, "row " + std::to_string(row) + " of A never arrives");
  }
  // 4. a tile's step is at or after the arrival of each row it reads.
  for (size_t i = 0; i < s.order.size(); ++i) {
    const gemm::TileCoord t = sched.TileAt(s.order[i]);
    if (s.step[i] < 0 || s.step[i] >= s.steps)
      return Fail(rank, "tile " + std::to_string(s.order[i]) + " waits for no step");
    for (int64_t row = t.row0; row < t.row0 + t.rows; ++row) {
      if (arrival[size_t(row)] > s.step[i]) {
        return Fail(rank, "tile " + std::to_string(s.order[i]) + " (row " + std::to_string(t.row0) + ", col " +
                              std::to_string(t.col0) + ") waits for step " + std::to_string(s.step[i]) +
                              " but reads row " + std::to_string(row) + ", which arrives at step " +
                              std::to_string(arrival[size_t(row)]));
      }
    }
  }
  return Status::Ok();
}

Status CheckGemmRs(const gemm::TileScheduler& sched, int ranks, const std::vector<CoreRankSchedule>& all) {
  const int64_t mb = sched.m / ranks;
  if (mb % sched.tile_m != 0) return Fail(0, "blocks of " + std::to_string(mb) + " rows straddle tiles");
  gemm::ScatterEpilogue e;
  e.ranks = ranks;
  e.block_rows = mb;
  const int64_t counters = (mb / sched.tile_m) * sched.tiles_n();
  // Per owner and counter: how many sources raised it; per owner, slot and counter: writes.
  std::vector<int> raises(size_t(ranks * counters), 0), writes(size_t(ranks * ranks * counters), 0);
  for (int r = 0; r < ranks; ++r) {
    e.rank = r;
    for (int64_t linear : all[size_t(r)].order) {
      const gemm::TileCoord t = sched.TileAt(linear);
      const gemm::ScatterTile to = gemm::ScatterTileOf(e, sched, t);
      if (to.owner < 0 || to.owner >= ranks || (t.row0 + t.rows - 1) / mb != to.owner) {
        return Fail(r, "tile " + std::to_string(linear) + " has no single owner");
      }
      if (to.counter < 0 || to.counter >= counters)
        return Fail(r, "tile " + std::to_string(linear) + " has no counter");
      ++raises[size_t(to.owner * counters + to.counter)];
      ++writes[size_t((to.owner * ranks + r) * counters + to.counter)];
    }
  }
  for (int q = 0; q < ranks; ++q) {
    for (int64_t c = 0; c < counters; ++c) {
      if (raises[size_t(q * counters + c)] != ranks) {
        return Fail(q, "counter " + std::to_string(c) + " is raised " +
                           std::to_string(raises[size_t(q * counters + c)]) + " times a run, not " +
                           std::to_string(ranks));
      }
      for (int r = 0; r < ranks; ++r) {
        if (writes[size_t((q * ranks + r) * counters + c)] != 1) {
          return Fail(q, "slot " + std::to_string(r) + "'s tile " + std::to_string(c) + " is written " +
                             std::to_string(writes[size_t((q * ranks + r) * counters + c)]) + " times a run");
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckCoreSchedule(FusedOp op, const gemm::TileScheduler& sched, int ranks,
                         const std::vector<CoreRankSchedule>& all) {
  if (ranks < 2 || int(all.size()) != ranks || sched.m % ranks != 0) {
    return Status::Internal("GEMM core schedule: " + std::to_string(all.size()) + " schedules for " +
                            std::to_string(ranks) + " ranks of " + std::to_string(sched.m) + " rows");
  }
  for (int r = 0; r < ranks; ++r) BRAID_RETURN_IF_ERROR(CheckOrder(sched, r, all[size_t(r)]));
  if (op == FusedOp::kGemmRs) return CheckGemmRs(sched, ranks, all);
  for (int r = 0; r < ranks; ++r) BRAID_RETURN_IF_ERROR(CheckAgGemm(sched, ranks, r, all[size_t(r)]));
  return Status::Ok();
}

}  // namespace braid::cuda::fused
