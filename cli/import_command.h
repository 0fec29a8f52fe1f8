// `braid import kineto FILE...|DIR | nsys FILE`: traces users already have,
// stored as one run with Braid's metrics and HolisticTraceAnalysis figures;
// with --ub-cfgs FILE, each of the file's keys checked against the trace's
// GEMMs as `report --by-gemm --ub-cfgs` does.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct ImportArgs {
  std::string format;  // kineto | nsys
  std::vector<std::string> files;
  std::string db = "braid.db";
  bool json = false;
  int threads = 0;      // Kineto files read at once; 0: every hardware thread, at most 16
  std::string ub_cfgs;  // a TE ub_cfgs YAML to check the imported trace against (cli/gemm_report.h)
};

void AddImportOptions(CLI::App* sub, ImportArgs* args);
int ExecuteImport(const ImportArgs& args);

}  // namespace braid::cli
