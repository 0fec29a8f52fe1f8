// `braid calibrate`: the sim backend's models on their own — one GEMM on a
// GPU (optionally beside SMs held by another kernel), one collective on a
// topology (one size, or an nccl-tests-style sweep), the check of the models
// against every public figure in catalog/hardware/calibration_points.toml
// and one board's measurements (calibration/h100-measured in the shared data folder), or
// the fit of a GPU file to such measurements; --measure (calibrate_measure.h)
// measures this machine's GPU and fits a GPU file to it.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct CalibrateArgs {
  std::string gemm;  // "M,N,K"
  std::string dtype = "bf16";
  std::string gpu = "h100-sxm";
  std::string collective;  // all_reduce | all_gather | reduce_scatter
  std::string bytes;
  std::string min_bytes, max_bytes;  // -b / -e: a sweep of sizes
  int step_factor = 2;               // -f
  std::string topology = "h100-sxm";
  int tp = -1;  // -1 = every GPU of the topology
  int held_sms = 0;
  std::string holder = "spin";  // spin | copy
  bool check = false;
  std::string measured = "../shared/calibration/h100-measured";  // --check's measured rows
  std::string fit;                                               // folder of measurements
  std::string out;                                               // -o for --fit
  bool keep_board_rate = false;
  bool measure = false;                     // --measure: this machine's GPU
  std::string gpu_out;                      // --gpu-out for --measure
  std::string csv_dir;                      // --csv-dir (default: a new folder beside --gpu-out)
  bool quick = false;                       // --quick: the small grid
  std::optional<std::string> fused_engine;  // --fused-engine for --measure: tasks | core (not given: tasks)
  bool no_progress = false;
  bool json = false;
};

void AddCalibrateOptions(CLI::App* sub, CalibrateArgs* args);
// 0 ok; 2 bad input (one line on stderr, nothing written); 1 when --check
// finds a point outside its tolerance.
int ExecuteCalibrate(const CalibrateArgs& args);

}  // namespace braid::cli
