#include "gemm_prediction.h"

#include <utility>

#include "braid/gpu_files.h"
#include "braid/presets.h"
#include "braid/run_pipeline.h"
#include "braid/sim_backend.h"
#include "braid/te_ub_cfgs.h"
#include "braid/topology_files.h"

namespace braid::cli {

std::vector<KeyShape> KeyShapesOf(const LayerWorkload& lw) {
  std::vector<KeyShape> out;
  const int64_t p = std::max(lw.tp, 1);
  for (const LayerOp& op : lw.ops) {
    const TeKey* key = TeKeyOfOp(op.name);
    if (key == nullptr || op.kind == LayerOpKind::kAttention) continue;
    const Workload& g = op.gemm;
    KeyShape s{std::string(key->name), g.m, g.n, g.k};
    if (op.kind == LayerOpKind::kTpGemm && g.op != Op::kAgGemm) {
      s.k = g.k / p;  // a K shard: the partial sums are reduced
    } else if (op.kind != LayerOpKind::kRowLocalGemm) {
      s.n = g.n / p;  // an N shard: the rank's columns of the output
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// Each GEMM op's config from the preset file: the exact entry, or the
// nearest by shape (said in a note).
Status ApplyPresets(const std::string& path, const std::string& gpu, const std::string& topology, LayerWorkload* lw,
                    std::vector<std::string>* notes) {
  BRAID_ASSIGN_OR_RETURN(PresetTable table, PresetTable::Load(path));
  for (LayerOp& op : lw->ops) {
    if (op.kind == LayerOpKind::kAttention) continue;
    const LookupResult r = table.Lookup(op.gemm, gpu, topology, "", op.pass);
    if (r.preset == nullptr) {
      return Status::Invalid("--preset " + path + " has no entry for " + op.name + " (" + op.gemm.Describe() + ", " +
                             std::string(PassName(op.pass)) + ") on " + gpu + " / " + topology);
    }
    op.config = r.preset->config;
    if (r.match == PresetMatch::kNearest) {
      notes->push_back(op.name + ": no preset of its shape; the nearest's config (" + r.preset->config.Describe() +
                       ")");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<GemmPrediction> PredictBlock(const PredictionInputs& in) {
  BRAID_ASSIGN_OR_RETURN(LayerWorkload lw, LayerFromArgs(in.workload));
  if (lw.ulysses) return Status::Invalid("--sequence-parallel ulysses: --by-gemm maps a TP block's GEMMs");
  BRAID_ASSIGN_OR_RETURN(Topology topo, LoadTopology(in.topology));
  BRAID_ASSIGN_OR_RETURN(GpuSpec gpu, LoadGpu(topo.gpu));
  GemmPrediction out;
  out.topology = in.topology;
  out.shapes = KeyShapesOf(lw);
  RunRequest request;
  request.config.algorithm = Algorithm::kSerial;
  if (!in.ub_cfgs.empty()) {
    BRAID_ASSIGN_OR_RETURN(TeConfiguredBlock block, LoadTeUbCfgsBlock(in.ub_cfgs, lw, gpu.sm_count));
    lw = std::move(block.layer);
    out.notes = std::move(block.notes);
    out.configured_by = "ub_cfgs " + in.ub_cfgs;
  } else if (!in.preset.empty()) {
    BRAID_RETURN_IF_ERROR(ApplyPresets(in.preset, topo.gpu, topo.name, &lw, &out.notes));
    out.configured_by = "preset " + in.preset;
  } else {
    out.configured_by = "serial";
  }
  out.block = lw.Describe();
  request.layer = lw;
  request.topology = in.topology;
  request.backend = "sim";
  request.options.warmup = 0;
  request.options.iters = 1;  // the sim is deterministic
  Result<PreparedRun> prepared = PrepareRun(request);
  if (!prepared.ok() && !in.preset.empty()) {
    // Nearest presets are picked GEMM by GEMM; the planner checks them together.
    return Status::Invalid("--preset " + in.preset +
                           ": its configs for this block do not run together: " + prepared.status().message());
  }
  if (!prepared.ok()) return prepared.status();
  BRAID_ASSIGN_OR_RETURN(std::unique_ptr<Backend> sim, MakeSimBackend(in.topology));
  BRAID_ASSIGN_OR_RETURN(RecordedRun run, ExecuteRun(*prepared, *sim));
  for (const LayerOpNote& op : LayerOpsOf(run.record)) {
    const TeKey* key = TeKeyOfOp(op.name);
    if (key == nullptr || !op.figures) continue;
    out.keys.push_back({std::string(key->name), op.name, op.config, *op.figures});
  }
  return out;
}

}  // namespace braid::cli
