// The shapes of one transformer block of a model: what a layer workload is
// built from. The data files and their loader live in presets/ (model_files.h).
#pragma once

#include <cstdint>
#include <string>

namespace braid {

struct ModelSpec {
  std::string name;
  int64_t hidden = 0;    // model dimension
  int64_t heads = 0;     // query heads
  int64_t kv_heads = 0;  // key/value heads (== heads without grouped-query attention)
  int64_t head_dim = 0;
  int64_t ffn = 0;         // MLP inner size (per projection when gated)
  bool gated_mlp = false;  // SwiGLU: fc1 computes gate and up, 2·ffn columns
  int64_t layers = 0;
  std::string source;
};

}  // namespace braid
