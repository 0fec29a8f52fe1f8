// The braid command: one subcommand per file (run_command.cc, ...).
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_exit.h"
#include "run_command.h"

int main(int argc, char** argv) {
  CLI::App app{"braid: profile and autotune communication/GEMM overlap in tensor-parallel layers"};
  app.require_subcommand(1);
  braid::cli::RunArgs run_args;
  CLI::App* run = app.add_subcommand("run", "run one overlap config and report its metrics");
  // A repeated flag takes its last value, as in most command lines.
  run->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  braid::cli::AddRunOptions(run, &run_args);
  if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "run") {
    std::fprintf(stderr, "braid: unknown command '%s' (available: run)\n", braid::OneLine(argv[1]).c_str());
    return braid::cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem, exit 2 (CLI11 would print a help block).
    std::string sub;
    for (const CLI::App* s : app.get_subcommands()) sub = s->get_name();
    std::string msg = braid::OneLine(e.what());
    if (e.get_name() == "RequiredError" && app.get_subcommands().empty()) {
      msg = "a command is required (available: run)";
    }
    std::fprintf(stderr, "braid%s%s: %s\n", sub.empty() ? "" : " ", sub.c_str(), msg.c_str());
    return braid::cli::kExitUsage;
  }
  if (run->parsed()) return braid::cli::ExecuteRun(run_args);
  return braid::cli::kExitUsage;
}
