// The Transport between processes: rank r of a plan is MPI rank r. Built
// only with MPI (BRAID_WITH_MPI).
//
// SendInPlace posts MPI_Isend straight from the caller's memory, in pieces
// of `piece_bytes`, and returns; Settle waits (bounded) until MPI has
// completed those sends. Send is eager, as the in-process transport's: it
// copies the bytes into a staging buffer piece by piece (copying piece i+1
// while piece i travels), posts them and returns; the staging buffers are
// reclaimed as their sends complete. SendBytes / RecvBytes do the same with
// MPI_BYTE (an FP8 wire message), paced by their byte count. Receives land
// in the caller's memory
// (MPI_Irecv, the same pieces). Plan tags (64-bit) become MPI tags through
// the plan's sorted tag list, so concurrent lanes and steps never mix. Every
// wait is bounded: a receive, or a settle, that waits longer than
// `timeout_s` fails with a message naming the peer and the bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "braid/cpu_process_backend.h"
#include "braid/plan.h"
#include "braid/transport.h"

namespace braid {

struct MpiTransportOptions {
  double timeout_s = 300;
  double link_gbps = 0;  // emulation as CpuBackendOptions; 0 = none
  double link_latency_us = 0;
  int64_t piece_bytes = int64_t{1} << 20;
  // Multi-node emulation: rank r sits on node r / ranks_per_node (0 = one
  // node); pairs on different nodes are paced at inter_gbps / inter_latency_us.
  int ranks_per_node = 0;
  double inter_gbps = 0;
  double inter_latency_us = 0;
};

// Every tag the plan's transfers use: send/recv matches and the ring steps
// of its collectives (CollectiveTag), sorted and unique.
std::vector<uint64_t> PlanTransportTags(const Plan& plan);

// Collective over MPI_COMM_WORLD (duplicates it). MPI must be initialised
// with MPI_THREAD_MULTIPLE (MakeMpiLauncher does).
Result<std::unique_ptr<Transport>> MakeMpiTransport(int rank, int ranks, std::vector<uint64_t> tags,
                                                    const MpiTransportOptions& options);

// The factory CpuProcessBackend uses: one MpiTransport per run.
CpuProcessBackend::TransportFactory MpiTransportFactory(double timeout_s, NodeLinks nodes = {});

}  // namespace braid
