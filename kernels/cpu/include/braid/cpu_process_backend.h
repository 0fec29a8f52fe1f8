// The cpu backend with ranks as processes (mpirun): process r runs rank r's
// lanes as threads on its own memory, transfers go through a Transport
// between processes (MPI), and rank 0 gathers every rank's events, aligned
// to its clock, and the worst verification error.
//
// Every process of the job constructs one and calls Run with the same plan
// and options in the same order: Run is collective. Checks that could fail
// on one process only (memory) are agreed on before anything runs, so bad
// input fails on every rank alike. A failure while running (a transfer that
// timed out) returns kInternal on the rank that saw it; the caller should
// then end the job (Launcher::Abort), since its peers are left waiting.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "braid/backend.h"
#include "braid/cpu_backend.h"
#include "braid/launcher.h"
#include "braid/topology.h"
#include "braid/transport.h"

namespace braid {

// How a topology's nodes shape link emulation: ranks fill nodes in order,
// and the inter-node link keeps the topology's ratio to the intra-node one
// (bandwidth and latency), scaled to the emulated intra-node link.
struct NodeLinks {
  int ranks_per_node = 0;      // 0: every rank on one node
  double bandwidth_ratio = 1;  // inter / intra bandwidth
  double latency_ratio = 1;    // inter / intra latency
};

// The node links of `topo`: none for one node (or links without bandwidth).
NodeLinks NodeLinksOf(const Topology& topo);

class CpuProcessBackend : public Backend {
 public:
  // Makes the transport of one run for `rank` (collective across processes).
  using TransportFactory =
      std::function<Result<std::unique_ptr<Transport>>(const Plan& plan, int rank, const CpuBackendOptions& options)>;

  // `launcher` outlives the backend; its world size must equal the plan's tp.
  CpuProcessBackend(Launcher* launcher, CpuBackendOptions options, TransportFactory factory)
      : launcher_(launcher), options_(options), factory_(std::move(factory)) {}

  std::string_view name() const override { return BackendKindName(BackendKind::kCpu); }
  // Rank 0's RunOutput has every rank's events and the verdict over ranks;
  // other ranks get the same iteration times and verdict and no events.
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;

 private:
  Status CheckLocally(const Plan& plan, const RunOptions& options) const;
  Result<RunOutput> RunChecked(const Plan& plan, const RunOptions& options);

  Launcher* launcher_;
  CpuBackendOptions options_;
  TransportFactory factory_;
};

}  // namespace braid
