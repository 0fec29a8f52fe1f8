// `braid presets show FILE` and `braid presets lookup FILE --op ... --m ...`:
// the runtime loader's view of a preset file from the command line.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct PresetsArgs {
  CLI::App* show = nullptr;
  CLI::App* lookup = nullptr;
  std::string file;
  std::string op, m, n, k, dtype = "bf16", gpu = "h100-sxm", topology = "h100-sxm";
  int tp = 0;
  bool json = false;
};

void AddPresetsOptions(CLI::App* sub, PresetsArgs* args);
int ExecutePresets(const PresetsArgs& args);

}  // namespace braid::cli
