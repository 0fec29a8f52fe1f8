// The cpu backend: real execution of a Plan. Ranks are threads (one per rank
// and lane), GEMMs are fp32 cblas_sgemm calls on real data, transfers move
// real bytes through a Transport (by default an in-process CpuTransport,
// paced as links when CpuBackendOptions asks), collectives are ring algorithms, and
// every result can be checked against the plain A·B.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <utility>

#include "braid/backend.h"
#include "braid/transport.h"

namespace braid {

// Settings only the cpu backend understands.
struct CpuBackendOptions {
  // Link emulation: pace every transfer on a directed rank pair as
  // latency + bytes / bandwidth while still moving the bytes. 0 = no pacing.
  double link_gbps = 0;        // Gbit/s per direction per rank pair
  double link_latency_us = 0;  // per message
  // Ranks as threads: the longest an iteration may take (from one iteration
  // barrier to the next) before a watchdog fails the run, naming what every
  // stuck thread waits for. Bounds a hang (a bug, a faulty transport), not the
  // run: long runs of short iterations are fine. 300 s like the MPI transport's.
  double timeout_s = 300;
};

// Finite and not negative; a latency needs a bandwidth; a finite timeout > 0.
Status CheckCpuBackendOptions(const CpuBackendOptions& o);

class CpuBackend : public Backend {
 public:
  // Makes the transport of one run (tests inject faults through it).
  using TransportFactory = std::function<std::unique_ptr<Transport>(int ranks, const CpuBackendOptions& options)>;

  CpuBackend() = default;
  explicit CpuBackend(CpuBackendOptions options, TransportFactory factory = nullptr)
      : options_(options), factory_(std::move(factory)) {}
  explicit CpuBackend(TransportFactory factory) : factory_(std::move(factory)) {}

  const CpuBackendOptions& options() const { return options_; }

  std::string_view name() const override { return BackendKindName(BackendKind::kCpu); }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;

 private:
  CpuBackendOptions options_;
  TransportFactory factory_;
};

}  // namespace braid
