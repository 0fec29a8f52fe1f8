// How `braid run` and `braid tune` print a training step on a TP × DP grid
// (braid/train_step.h): a table, or the `train_step` member of --json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "braid/dp_tune.h"
#include "braid/train_step.h"

namespace braid::cli {

std::string TrainStepTable(const TrainStepRequest& request, const TrainStepFigures& f);
nlohmann::json TrainStepJson(const TrainStepRequest& request, const TrainStepFigures& f);

// `braid tune --dp`: the step before tuning (serial TP GEMMs, Megatron's DP
// defaults), with the tuned TP block, and with the DP side tuned too; the
// Megatron-LM arguments of the winner.
struct DpTuneReport {
  TrainStepRequest request;
  TrainStepFigures serial_tp;  // serial TP block, Megatron's DP defaults
  DpTuneResult tuned;          // on the tuned TP block (megatron_figures: its Megatron defaults)
};
std::string DpTuneTable(const DpTuneReport& r);
nlohmann::json DpTuneJson(const DpTuneReport& r);

}  // namespace braid::cli
