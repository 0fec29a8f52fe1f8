// An all-gather GEMM's pulls by SMs (issue 56 point 2, "a few comm CTAs",
// the plan's `comm_engine = sm`): a small kernel on CTAs the GEMM's
// persistent grid leaves free copies each arriving block of A from its
// owner (a peer pointer) into this rank's gathered A and raises that
// arrival step's flag, which the GEMM core's tiles wait on
// (arrival_wait.h). The copy-engine variant needs no kernel (copies and
// stream memory writes); this one costs SMs but no copy-engine queue.
//
// Every CTA copies its share of each pull in issue order (pull i is split
// into `ctas` contiguous 16-byte-aligned slices), then bumps the pull's
// done counter; the CTA that brings it to epoch·ctas is the last one, and
// it raises the flag (release, system scope), so the flag follows every
// CTA's slice. Plain data, standard C++ only (the kernel's source is C++17).
#pragma once

#include <cstdint>

namespace braid::cuda::gemm {

struct RowPull {
  const void* src = nullptr;  // the owner's rows (peer pointer)
  void* dst = nullptr;        // the same rows of this rank's gathered A
  int64_t bytes = 0;          // a multiple of 16
  int32_t flag = 0;           // the arrival step it completes
  int32_t pad = 0;
};
static_assert(sizeof(RowPull) == 32, "the host uploads RowPull arrays as they are");

struct RowPullLaunch {
  const RowPull* pulls = nullptr;  // device array of `count`
  int32_t count = 0;
  uint32_t* flags = nullptr;    // this rank's arrival flags (index = RowPull::flag)
  uint32_t* done = nullptr;     // device, one per pull, zero before the first run: CTAs finished, cumulative
  uint32_t epoch = 0;           // the value flags are raised to this run
  int32_t never_set_flag = -1;  // test hook: this flag is never raised
};

}  // namespace braid::cuda::gemm
