// `braid export`: one stored run as a Chrome / Perfetto trace file.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct ExportArgs {
  std::string db = "braid.db";
  long long run = -1;
  std::optional<long long> iteration;  // absent: every iteration
  std::string format = "chrome";
  std::string out;
};

void AddExportOptions(CLI::App* sub, ExportArgs* args);
int ExecuteExport(const ExportArgs& args);

}  // namespace braid::cli
