// The sim's kernel choice beside the kernels cuBLASLt launched
// (gemm_kernels.csv, written by `calibrate --measure` from CUPTI's kernel
// records). The sim picks a tile and a grid per shape from the GPU file's
// `[[kernel]]` candidates; how many CTAs the library really launched, in
// clusters of how many, and how many of those clusters fit at once, decide
// the waves a GEMM loses when another kernel holds SMs (issue 54 point 1):
// this table is where the two are set side by side, shape by shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/kernel_tile_name.h"
#include "braid/sim_measured.h"

namespace braid::sim {

struct KernelChoiceRow {
  int64_t m = 0, n = 0, k = 0;
  bool fp8 = false;
  // The library's: its first kernel of the shape (the GEMM; a split-K
  // reduction, if any, comes after it), and how many it launched.
  std::string kernel;
  int kernels = 0;
  std::optional<TileShape> tile;
  int64_t grid_ctas = 0;
  int cluster_ctas = 1;
  int max_active_clusters = 0;
  // CTAs resident at once on an idle GPU: max_active_clusters × cluster_ctas
  // where CUPTI reported it, else one per SM.
  int64_t resident_ctas = 0;
  // The sim's choice on all SMs (GemmCostOf).
  TileShape sim_tile;
  bool sim_stream_k = false;
  int sim_split_k = 1;
  int64_t sim_grid_ctas = 0;  // data-parallel: its tiles; stream-K: the SMs it sized for
  bool tile_agrees() const { return tile && tile->m == sim_tile.m && tile->n == sim_tile.n; }
  bool grid_agrees() const { return grid_ctas == sim_grid_ctas; }
};

// One row per (shape, dtype) of board.kernels, in the file's order.
std::vector<KernelChoiceRow> CompareKernelChoice(const GpuSpec& gpu, const MeasuredBoard& board);
// The rows as an aligned text table, with a last line counting agreements.
std::string FormatKernelChoiceTable(const std::vector<KernelChoiceRow>& rows);

}  // namespace braid::sim
