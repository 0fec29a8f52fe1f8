// What `braid presets export-te` and Python's te_ub_cfgs both do between
// reading their arguments and BuildTeUbCfgs (te_export.h): the GPU and TP
// degree resolved against the preset table, the block TE's userbuffer
// overlap serves (sequence parallel), and the export's provenance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "braid/layer_workload.h"
#include "braid/model_spec.h"
#include "braid/presets.h"
#include "braid/status.h"
#include "braid/te_export.h"
#include "braid/topology.h"

namespace braid {

struct TeExportRequest {
  ModelSpec model;
  Topology topology;
  int64_t seq = 0;
  int64_t batch = 0;
  Phase phase = Phase::kPrefill;  // prefill or train: the sequence-parallel phases
  DType dtype = DType::kBf16;
  std::optional<int> tp;           // unset: the table's only TP degree for (gpu, topology)
  std::optional<std::string> gpu;  // unset: the topology's GPU
  std::string source;              // the preset file, as the caller named it
  bool nearest = false;            // TE's nearest setting where a config is not expressible
};

struct PreparedTeExport {
  LayerWorkload block;
  std::string gpu;       // the presets' GPU
  std::string topology;  // the topology's name
  TeExportInfo info;     // provenance, and what comm_sms = 0 resolves to
};

// NotFound when the table has no presets for (gpu, topology) and no `tp`
// was given; Invalid when it has several TP degrees ("...: pass `tp`"), the
// degree does not fit the topology, or the block cannot be built.
[[nodiscard]] Result<PreparedTeExport> PrepareTeExport(const TeExportRequest& request, const PresetTable& table);

}  // namespace braid
