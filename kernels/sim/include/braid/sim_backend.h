// The sim backend: deterministic discrete-event execution of any Plan on a
// hardware model (a GPU file and a topology), no hardware needed.
//
// Per rank, every lane is a stream running its steps in order; deps order
// steps across lanes (each cross-lane dependency costs the GPU's
// event_wait_us); a recv completes when the matching send's data has
// arrived; a collective starts when every rank's instance is ready and all
// ranks finish it together. Running work shares resources as rates that are
// re-evaluated whenever work starts or ends: comm kernels hold SMs (NCCL
// channels, or config.comm_sms) that a running GEMM loses (its rate follows
// its wave count on the SMs left; SimModelOptions::comm_sm_contention scales
// what it loses); kernels on one GPU share HBM bandwidth;
// transfers through one link port share its bandwidth; copy-engine
// transfers hold no SMs. A comm kernel on a lane of higher priority than
// the running GEMM's gets its SMs at once, otherwise at the GEMM's next wave.
//
// Not modelled (first version): a posted NCCL recv kernel spinning on its
// SMs before data arrives, and SMs on the receiving side of a send; limits
// on concurrent copy-engine transfers (copy_engines); host-memory contention
// of PCIe without P2P (the link figure is used per GPU); NVLink pairs (every
// link is a per-GPU port, as on NVSwitch); L2 effects, clocks and power;
// network congestion beyond port sharing. The fused kernel is modelled as a
// whole (sim_models.h FusedKernelTime: its blocks land in order and an
// all-gather's last block of tiles waits for its rows), not tile by tile.
//
// Deterministic: identical inputs give identical events. Warm-up iterations
// are not simulated (they would repeat the timed ones exactly); timed
// iteration i starts when iteration i−1 ends. sim computes no data, so
// verification does not run (verify.ran stays false, with a note).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/backend.h"
#include "braid/gpu_files.h"
#include "braid/sim_error_band.h"
#include "braid/topology.h"

namespace braid {

namespace sim {
class Engine;
}

// Model parameters that are not hardware-file data. The defaults are the
// model every existing result was made with.
struct SimModelOptions {
  // SM contention: a running comm kernel holding s SMs (and the fused
  // kernel's comm part) takes round(s × comm_sm_contention) SMs, clamped to
  // [0, sm_count − 1], from a concurrent GEMM (sim_models.h CommSmsLost).
  // 1.0 = exactly its own SMs. Must be finite and >= 0.
  double comm_sm_contention = 1.0;
  // Predict a cuda loopback run (CudaBackendOptions::loopback): all P ranks
  // on one GPU of the topology's kind, sharing its SMs and HBM, transfers as
  // device copies (braid/sim_loopback.h). The topology's size and links do
  // not apply; CheckLoopback does.
  bool loopback = false;
};

class SimBackend : public Backend {
 public:
  SimBackend(GpuSpec gpu, Topology topo);
  // @pre options.comm_sm_contention is finite and >= 0 (Run and Evaluate
  // refuse it otherwise).
  SimBackend(GpuSpec gpu, Topology topo, SimModelOptions options);
  ~SimBackend() override;
  SimBackend(const SimBackend&) = delete;
  SimBackend& operator=(const SimBackend&) = delete;

  std::string_view name() const override { return BackendKindName(BackendKind::kSim); }
  bool IterationTimesAreMakespans() const override { return true; }
  // Checks the plan (CheckPlanStructure) and that the topology has P GPUs
  // (in loopback: CheckLoopback).
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;

  // One evaluation: simulates one iteration of a plan that already passed
  // CheckPlanStructure and returns its makespan in ns. Reuses its buffers, so
  // repeated calls allocate nothing once the plan sizes are seen.
  Result<int64_t> Evaluate(const Plan& plan);

  // The expected relative error of the makespan the last Run or Evaluate of
  // `plan` gave (braid/sim_error_band.h); Run also reports it in its
  // settings ("error_band", "error_band_assumed").
  // @pre the last Run or Evaluate on this backend was of `plan`, and ok
  sim::RunErrorBand ErrorBand(const Plan& plan) const;

  const GpuSpec& gpu() const { return gpu_; }
  const Topology& topology() const { return topo_; }
  const SimModelOptions& model_options() const { return model_; }

 private:
  // Evaluate's body; graph_built: the engine's graph already holds the plan's.
  Result<int64_t> Simulate(const Plan& plan, bool graph_built);

  GpuSpec gpu_;
  Topology topo_;
  SimModelOptions model_;
  std::unique_ptr<sim::Engine> engine_;
};

// The hardware a sim backend models: the topology (built-in name or .toml
// path) and the GPU file its `gpu` field names.
struct SimHardware {
  GpuSpec gpu;
  Topology topo;
};
Result<SimHardware> LoadSimHardware(const std::string& topology_name_or_file);

// A SimBackend over LoadSimHardware(topology_name_or_file).
Result<std::unique_ptr<Backend>> MakeSimBackend(const std::string& topology_name_or_file);

}  // namespace braid
