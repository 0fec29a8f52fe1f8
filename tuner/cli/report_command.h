// `braid report`: the runs in a store, or one run's metrics.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct ReportArgs {
  std::string db = "braid.db";
  long long run = -1;
  bool json = false;
};

void AddReportOptions(CLI::App* sub, ReportArgs* args);
int ExecuteReport(const ReportArgs& args);

}  // namespace braid::cli
