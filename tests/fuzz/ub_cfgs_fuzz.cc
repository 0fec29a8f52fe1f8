// libFuzzer target: bytes = a TransformerEngine ub_cfgs YAML file. Reading
// must never crash nor throw (yaml-cpp's exceptions stop in the reader); a
// refusal is one line naming the file; a file that resolves for a block
// gives each GEMM a config TE's options run back exactly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/comm_sms_effect.h"
#include "braid/layer_workload.h"
#include "braid/te_ub_cfgs.h"
#include "fuzz_checks.h"

namespace {

// llama3-8b's shape, written out (the fuzzer links no model files).
braid::LayerWorkload Block(braid::Phase phase) {
  braid::ModelSpec m;
  m.name = "fuzz";
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  m.gated_mlp = true;
  m.layers = 32;
  auto lw = braid::MakeLayerWorkload(m, 2048, 1, phase, 4, braid::DType::kBf16, true);
  braid::fuzz::Require(lw.ok(), "the fuzz block builds");
  return *lw;
}

void CheckOneLine(const braid::Status& s) {
  braid::fuzz::Require(s.message().find('\n') == std::string::npos, "one-line error");
  braid::fuzz::Require(s.message().rfind("fuzz.yaml", 0) == 0 || s.message().find(':') != std::string::npos,
                       "error names where");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const braid::LayerWorkload train = Block(braid::Phase::kTrain);
  static const braid::LayerWorkload prefill = Block(braid::Phase::kPrefill);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = braid::ParseTeUbCfgsYaml(text, "fuzz.yaml");
  if (!file.ok()) {
    CheckOneLine(file.status());
    braid::fuzz::Require(file.status().message().rfind("fuzz.yaml", 0) == 0, "a parse error names the file");
    return 0;
  }
  for (const braid::LayerWorkload* lw : {&train, &prefill}) {
    auto block = braid::ResolveTeUbCfgs(&*file, *lw, 132);
    if (!block.ok()) {
      CheckOneLine(block.status());
      continue;
    }
    for (const braid::TeKeyConfig& k : block->keys) {
      braid::fuzz::Require(k.key != nullptr, "every entry has its key");
      braid::fuzz::Require(k.config.ValidateKnobs().ok(), "a resolved config's knobs are valid");
      if (!k.overlapped) continue;
      for (const braid::LayerOp& op : lw->ops) {
        if (braid::TeKeyOfOp(op.name) != k.key) continue;
        auto back = braid::TeOptionsOf(k.config, *k.key, op.gemm, lw->tp);
        braid::fuzz::Require(back.ok(), "a resolved config is expressible");
        braid::fuzz::Require(braid::TeConfigOf(*back, op.gemm) == k.config, "options run back the config");
      }
    }
    (void)braid::WithTeConfigs(*lw, *block);
  }
  return 0;
}
