// An all-gather GEMM whose tiles wait for their rows of A (issue 56 point
// 2): the persistent loop hands out tiles in arrival order
// (tile_arrival_order.h) and, before loading a tile whose rows another rank
// sends, waits until the flag of the step that brings them holds the run's
// epoch. The comm side (copy engines or peers' stores, then a flag write
// with system scope) is the caller's; this is what the kernels read.
//
// ArrivalWait is plain data passed by value to both kernels (all null: the
// plain GEMM, every tile in the scheduler's order); standard C++ only, as
// the kernels' sources are C++17. ArrivalTablesFor (arrival_tables.h)
// builds the two device arrays on the host. `order` alone (step and flags
// null) is a hand-out order without waits: how a reduce-scatter GEMM's
// tiles go out in ScatterTables.order (scatter_tables.h).
#pragma once

#include <cstdint>

#include "gemm/tile_times.h"

namespace braid::cuda::gemm {

struct ArrivalWait {
  // Device arrays of the scheduler's total() entries: the linear tile index
  // (TileAt) of the i-th tile handed out, and the step after which its rows
  // are here (0: the rank's own block, no wait). step is read only when
  // flags is set.
  const int64_t* order = nullptr;
  const int32_t* step = nullptr;
  // Step s's rows are in place once flags[s] >= epoch (read with acquire,
  // system scope: copy engines and other GPUs write them).
  const uint32_t* flags = nullptr;
  uint32_t epoch = 0;
  // A step that does not arrive within timeout_ns of the wait's start:
  // 1 + the step is written to *timed_out (host-mapped memory, as the
  // kernel then traps and device memory is lost with the context) and the
  // kernel traps, so the launch fails and the host reads which step.
  uint64_t timeout_ns = 0;
  uint32_t* timed_out = nullptr;
  // Stamps per group of tiles in this hand-out (tile_times.h); all null: none.
  TileTimes times;
};

}  // namespace braid::cuda::gemm
