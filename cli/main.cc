// The braid command: one subcommand per file (run_command.cc, ...).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "braid/launcher.h"
#include "braid/version.h"
#include "calibrate_command.h"
#include "cli_exit.h"
#include "export_command.h"
#include "import_command.h"
#include "list_command.h"
#include "mpi_job.h"
#include "presets_command.h"
#include "report_command.h"
#include "run_command.h"
#include "tune_command.h"

namespace {

struct Command {
  CLI::App* app;
  std::function<int()> execute;
};

std::string Names(const std::vector<Command>& cmds) {
  std::string out;
  for (const Command& c : cmds) out += (out.empty() ? "" : ", ") + c.app->get_name();
  return out;
}

// A command other than run and tune under mpirun. It still joins the job's
// first two collectives, as run and tune do (the hash of the arguments, then
// the statuses), so that ranks started with another command learn that the
// job's ranks differ, and rank 0 prints one line for the job instead of the
// job ending with no Braid line at all.
int RefuseUnderMpirun(const std::string& name) {
  braid::Status why = braid::Status::Invalid("under mpirun only `braid run` and `braid tune` run (ranks as processes)");
  int rank = braid::RankFromEnvironment();
  auto world = braid::MakeLauncher(braid::cli::kMpiDefaultTimeoutS);
  if (world.ok()) {
    rank = (*world)->rank();
    // The command's name: never a run's or tune's arguments.
    braid::Status same =
        braid::SameAsRank0(**world, braid::cli::HashOfArguments("braid " + name), braid::cli::kArgumentsDiffer);
    same = braid::AgreeOnStatus(**world, same);
    if (!same.ok()) why = same;
  }
  if (rank == 0) std::fprintf(stderr, "braid %s: %s\n", name.c_str(), why.message().c_str());
  return braid::cli::kExitUsage;
}

int Main(int argc, char** argv) {
  using namespace braid::cli;
  CLI::App app{"braid: profile and autotune communication/GEMM overlap in tensor-parallel layers"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "braid " + std::string(braid::BraidVersion()) + " (git " +
                                        std::string(braid::BraidGitRevision()) + ")");
  RunArgs run_args;
  ReportArgs report_args;
  ExportArgs export_args;
  ImportArgs import_args;
  CalibrateArgs calibrate_args;
  PresetsArgs presets_args;
  TuneArgs tune_args;
  std::vector<Command> cmds;
  auto add = [&](const char* name, const char* help, auto add_options, auto* args, auto execute) {
    CLI::App* sub = app.add_subcommand(name, help);
    // A repeated flag takes its last value, as in most command lines.
    sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    add_options(sub, args);
    cmds.push_back({sub, [args, execute] { return execute(*args); }});
  };
  add("run", "run one overlap config, report and store its metrics", AddRunOptions, &run_args, ExecuteRun);
  add("tune", "search overlap configs for an op or a model's TP GEMMs and write the winners as presets", AddTuneOptions,
      &tune_args, ExecuteTune);
  add("report", "list stored runs, or show one run's metrics", AddReportOptions, &report_args, ExecuteReport);
  add("export", "write a stored run as a Chrome / Perfetto trace", AddExportOptions, &export_args, ExecuteExport);
  add("import", "store a Kineto or Nsight Systems trace with its overlap metrics", AddImportOptions, &import_args,
      ExecuteImport);
  add("presets", "show a preset file, look up the preset a runtime would pick, or export TransformerEngine ub_cfgs",
      AddPresetsOptions, &presets_args, ExecutePresets);
  ListArgs list_args;
  add("list", "list the built-in models, topologies or GPUs", AddListOptions, &list_args, ExecuteList);
  add("calibrate", "the sim backend's GEMM and collective models, and their check against public figures",
      AddCalibrateOptions, &calibrate_args, ExecuteCalibrate);

  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const Command& c : cmds) known = known || c.app->get_name() == argv[1];
    if (!known) {
      std::fprintf(stderr, "braid: unknown command '%s' (available: %s)\n", braid::OneLine(argv[1]).c_str(),
                   Names(cmds).c_str());
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem, exit 2 (CLI11 would print a help block).
    std::string sub;
    for (const CLI::App* s : app.get_subcommands()) sub = s->get_name();
    std::string msg = braid::OneLine(e.what());
    if (e.get_name() == "RequiredError" && app.get_subcommands().empty()) {
      msg = "a command is required (available: " + Names(cmds) + ")";
    }
    // Under mpirun every rank parses the same line: rank 0 speaks for all.
    if (braid::RankFromEnvironment() == 0) {
      std::fprintf(stderr, "braid%s%s: %s\n", sub.empty() ? "" : " ", sub.c_str(), msg.c_str());
    }
    return kExitUsage;
  }
  for (const Command& c : cmds) {
    if (!c.app->parsed()) continue;
    // Every process would run the whole command (and write the same store).
    if (braid::StartedByMpiLauncher() && c.app->get_name() != "run" && c.app->get_name() != "tune") {
      return RefuseUnderMpirun(c.app->get_name());
    }
    return c.execute();
  }
  return kExitUsage;
}

// Output that goes nowhere is an error: stdout is buffered, so a full disk
// or /dev/full shows only when it is flushed, which exit() would do silently.
int CheckStdout(int rc) {
  errno = 0;
  std::cout.flush();  // synced with stdio: this flushes stdout, and sets errno when that fails
  const bool cout_failed = !std::cout.good();
  int err = errno;
  const bool flush_failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!cout_failed && !flush_failed) return rc;
  if (err == 0) err = errno;
  std::fprintf(stderr, "braid: cannot write to standard output: %s\n",
               err != 0 ? std::strerror(err) : "an earlier write to it failed");
  return rc == 0 ? 1 : rc;
}

}  // namespace

// Every module returns a Status; this catch is the last resort for a bug
// that lets an exception through: one line and exit 1, never an abort.
int main(int argc, char** argv) {
  try {
    return CheckStdout(Main(argc, argv));
  } catch (const std::bad_alloc&) {
    // Commands that write catch it themselves where they can say what was
    // kept; elsewhere (planning a huge layer) it still ends in one line.
    std::fprintf(stderr, "braid: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "braid: internal error: %s\n", braid::OneLine(e.what()).c_str());
  } catch (...) {
    std::fprintf(stderr, "braid: internal error: an unknown exception\n");
  }
  return 1;
}
