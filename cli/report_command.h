// `braid report`: the runs in a store with their key figures (filtered,
// sorted), one run's metrics, one run GEMM by GEMM, or two runs side by
// side.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct ReportArgs {
  std::string db = "braid.db";
  long long run = -1;
  CLI::Option* run_option = nullptr;
  std::vector<long long> compare;  // two run ids
  long long session = 0;
  std::string backend;
  std::string op;
  long long limit = 0;
  std::string sort = "id";
  bool json = false;
  bool by_gemm = false;  // --run N --by-gemm (cli/gemm_report.h)
  int rank = -1;
  CLI::Option* rank_option = nullptr;
  int iteration = -1;
  CLI::Option* iteration_option = nullptr;
  std::string ub_cfgs;  // --by-gemm --ub-cfgs FILE.yaml
  // --by-gemm --model M --seq L [--batch --phase --dtype --tp --topology
  // --preset]: the block the trace ran (cli/gemm_prediction.h).
  std::string model, seq, batch = "1", phase = "train", dtype = "bf16", topology = "h100-sxm", preset;
  int tp = 0;
  CLI::Option* tp_option = nullptr;
};

void AddReportOptions(CLI::App* sub, ReportArgs* args);
int ExecuteReport(const ReportArgs& args);

}  // namespace braid::cli
