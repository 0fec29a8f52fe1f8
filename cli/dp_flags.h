// The data-parallel flags of `braid run` and `braid tune` (--dp, --zero,
// --fsdp, --dp-schedule, --bucket-size, ...) and the DpSetup they ask for
// (braid/train_step.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "braid/dp_setup.h"
#include "braid/layer_workload.h"
#include "braid/status.h"

namespace braid::cli {

struct DpArgs {
  int dp = 1;
  std::string zero;  // "" = none
  bool fsdp = false;
  std::string schedule = "bucketed";
  std::optional<int64_t> bucket_size;
  int decomposed_layers = -1;
  std::string algo = "ring";
  int chunks = 1;
  int prefetch = 1;
  int comm_sms = 0;
  int layers = 0;
  std::string op;  // --dp-op: one DP op of the block alone, on its DP group
  const CLI::App* app = nullptr;
};

// `braid run`: every DP flag.
void AddDpOptions(CLI::App* sub, DpArgs* a);
// `braid tune`: the grid's flags only (--dp, --zero, --fsdp, --dp-comm-sms,
// --layers); the rest is what it searches.
void AddDpGridOptions(CLI::App* sub, DpArgs* a);

// The setup the flags ask for. Invalid (one line naming the flag) for a
// value out of range or a DP flag without --dp 2 or more.
Result<DpSetup> DpSetupFromArgs(const DpArgs& a);

// Whether any DP flag was given (--dp above 1 included).
bool DpRequested(const DpArgs& a);

// "--dp 8 --zero 1 ..." for the argument hash of ranks under mpirun.
std::string DpArgsKey(const DpArgs& a);

}  // namespace braid::cli
