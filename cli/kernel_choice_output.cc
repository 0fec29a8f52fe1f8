#include "kernel_choice_output.h"

namespace braid::cli {

nlohmann::json KernelChoiceJson(const std::vector<sim::KernelChoiceRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const sim::KernelChoiceRow& r : rows) {
    nlohmann::json cublas{{"kernel", r.kernel},
                          {"kernels", r.kernels},
                          {"grid_ctas", r.grid_ctas},
                          {"cluster_ctas", r.cluster_ctas},
                          {"max_active_clusters", r.max_active_clusters},
                          {"resident_ctas", r.resident_ctas}};
    cublas["tile"] = r.tile ? nlohmann::json{r.tile->m, r.tile->n} : nlohmann::json();
    out.push_back({{"m", r.m},
                   {"n", r.n},
                   {"k", r.k},
                   {"dtype", r.fp8 ? "fp8_e4m3" : "bf16"},
                   {"cublaslt", cublas},
                   {"sim",
                    {{"tile", {r.sim_tile.m, r.sim_tile.n}},
                     {"stream_k", r.sim_stream_k},
                     {"split_k", r.sim_split_k},
                     {"grid_ctas", r.sim_grid_ctas}}},
                   {"tile_agrees", r.tile_agrees()},
                   {"grid_agrees", r.grid_agrees()}});
  }
  return out;
}

}  // namespace braid::cli
