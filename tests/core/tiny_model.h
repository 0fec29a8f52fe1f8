// A model small enough for exhaustive plan proofs, divisible by P up to 8.
#pragma once

#include "braid/model_spec.h"

namespace braid::testing_core {

inline ModelSpec TinyModel() {
  ModelSpec m;
  m.name = "tiny";
  m.hidden = 64;
  m.heads = 8;
  m.kv_heads = 8;
  m.head_dim = 8;
  m.ffn = 128;
  m.gated_mlp = true;
  m.layers = 2;
  return m;
}

}  // namespace braid::testing_core
