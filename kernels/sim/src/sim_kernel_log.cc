// The sim's kernel choice beside cuBLASLt's (braid/sim_kernel_log.h).
#include "braid/sim_kernel_log.h"

#include <cstdio>
#include <map>
#include <tuple>

#include "braid/sim_models.h"

namespace braid::sim {

std::vector<KernelChoiceRow> CompareKernelChoice(const GpuSpec& gpu, const MeasuredBoard& board) {
  std::vector<KernelChoiceRow> rows;
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>, size_t> index;
  for (const MeasuredGemmKernel& g : board.kernels) {
    const auto key = std::tuple{g.m, g.n, g.k, g.fp8};
    if (auto it = index.find(key); it != index.end()) {
      ++rows[it->second].kernels;
      continue;
    }
    index.emplace(key, rows.size());
    KernelChoiceRow r;
    r.m = g.m, r.n = g.n, r.k = g.k, r.fp8 = g.fp8;
    r.kernel = g.kernel;
    r.kernels = 1;
    r.tile = KernelTileOf(g.kernel);
    r.grid_ctas = g.grid_ctas;
    r.cluster_ctas = g.cluster_ctas;
    r.max_active_clusters = g.max_active_clusters;
    r.resident_ctas = g.max_active_clusters > 0 ? int64_t(g.max_active_clusters) * g.cluster_ctas : gpu.sm_count;
    const GemmCost c = GemmCostOf(gpu, g.m, g.n, g.k, g.fp8 ? DType::kFp8E4m3 : DType::kBf16);
    r.sim_tile = {c.tile_m, c.tile_n};
    r.sim_stream_k = c.stream_k;
    r.sim_split_k = c.split_k;
    r.sim_grid_ctas = c.stream_k ? c.grid_sms : c.tiles;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string FormatKernelChoiceTable(const std::vector<KernelChoiceRow>& rows) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %-5s %-9s %6s %7s %8s   %-9s %6s %s\n", "shape", "dtype", "tile", "grid",
                "cluster", "resident", "sim tile", "grid", "kernel");
  out += line;
  int tiles = 0, tiles_known = 0, grids = 0;
  for (const KernelChoiceRow& r : rows) {
    const std::string shape = std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k);
    const std::string tile = r.tile ? std::to_string(r.tile->m) + "x" + std::to_string(r.tile->n) : "?";
    const std::string sim_tile = std::to_string(r.sim_tile.m) + "x" + std::to_string(r.sim_tile.n) +
                                 (r.sim_stream_k      ? " sk"
                                  : r.sim_split_k > 1 ? " k" + std::to_string(r.sim_split_k)
                                                      : "");
    std::snprintf(line, sizeof line, "%-20s %-5s %-9s %6lld %7d %8lld   %-9s %6lld ", shape.c_str(),
                  r.fp8 ? "fp8" : "bf16", tile.c_str(), static_cast<long long>(r.grid_ctas), r.cluster_ctas,
                  static_cast<long long>(r.resident_ctas), sim_tile.c_str(), static_cast<long long>(r.sim_grid_ctas));
    out += line + r.kernel + (r.kernels > 1 ? " (+" + std::to_string(r.kernels - 1) + " more)" : "") + "\n";
    tiles_known += r.tile.has_value();
    tiles += r.tile_agrees();
    grids += r.grid_agrees();
  }
  std::snprintf(line, sizeof line, "kernel choice: tile as cuBLASLt's in %d of %d (%d named one), grid in %d of %zu\n",
                tiles, int(rows.size()), tiles_known, grids, rows.size());
  out += line;
  return out;
}

}  // namespace braid::sim
