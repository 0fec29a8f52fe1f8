// `braid calibrate`: the sim backend's models on their own — one GEMM on a
// GPU, one collective on a topology, or the check of the models against
// every public figure in presets/hardware/calibration_points.toml.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct CalibrateArgs {
  std::string gemm;  // "M,N,K"
  std::string dtype = "bf16";
  std::string gpu = "h100-sxm";
  std::string collective;  // all_reduce | all_gather | reduce_scatter
  std::string bytes;
  std::string topology = "h100-sxm";
  int tp = 0;  // 0 = every GPU of the topology
  bool check = false;
  bool json = false;
};

void AddCalibrateOptions(CLI::App* sub, CalibrateArgs* args);
// 0 ok; 2 bad input (one line on stderr); 1 when --check finds a point off by more than 10%.
int ExecuteCalibrate(const CalibrateArgs& args);

}  // namespace braid::cli
