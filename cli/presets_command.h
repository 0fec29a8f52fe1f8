// `braid presets show FILE` and `braid presets lookup FILE --op ... --m ...`:
// the runtime loader's view of a preset file from the command line.
// `braid presets export-te FILE --model NAME --seq L --batch B --topology T
// [--tp P] [--gpu G] [--dtype D] [--phase prefill|train] [-o OUT.yaml]`: the
// file's configs for one model's block as TransformerEngine ub_cfgs YAML
// (te_export.h); train adds the backward GEMMs' keys. Exact, or refused in
// one line; with --nearest, TE's nearest setting where a preset is not
// expressible, and both blocks' sim times on stderr and in the file.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct PresetsArgs {
  CLI::App* show = nullptr;
  CLI::App* lookup = nullptr;
  CLI::App* export_te = nullptr;
  std::string file;
  std::string op, m, n, k, dtype = "bf16", gpu = "h100-sxm", topology = "h100-sxm";
  std::string backend;         // lookup: empty = the GPU backends
  std::string pass = "fprop";  // lookup: which GEMM of the linear
  int tp = 0;
  bool json = false;
  // export-te
  std::string model, seq, batch, te_topology, te_gpu, output;  // te_gpu empty: the topology's GPU
  std::string te_phase = "prefill";                            // prefill | train
  int te_tp = 0;                                               // 0: the single TP in the file
  bool nearest = false;  // write TE's nearest setting where a preset is not expressible, and time both
};

void AddPresetsOptions(CLI::App* sub, PresetsArgs* args);
int ExecutePresets(const PresetsArgs& args);

}  // namespace braid::cli
