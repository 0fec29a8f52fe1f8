// The cpu backend: real execution of a Plan. Ranks are threads (one per rank
// and lane), GEMMs are fp32 cblas_sgemm calls on real data, transfers move
// real bytes through a Transport (by default an in-process CpuTransport,
// paced as links when RunOptions asks), collectives are ring algorithms, and
// every result can be checked against the plain A·B.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <utility>

#include "braid/backend.h"
#include "braid/transport.h"

namespace braid {

class CpuBackend : public Backend {
 public:
  // Makes the transport of one run (tests inject faults through it).
  using TransportFactory =
      std::function<std::unique_ptr<Transport>(int ranks, const RunOptions& options)>;

  CpuBackend() = default;
  explicit CpuBackend(TransportFactory factory) : factory_(std::move(factory)) {}

  std::string_view name() const override { return "cpu"; }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;

 private:
  TransportFactory factory_;
};

}  // namespace braid
