// How `braid run` and `braid tune` print a training step on a TP × DP grid
// (braid/train_step.h): a table, or the `train_step` member of --json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "braid/train_step.h"

namespace braid::cli {

std::string TrainStepTable(const TrainStepRequest& request, const TrainStepFigures& f);
nlohmann::json TrainStepJson(const TrainStepRequest& request, const TrainStepFigures& f);

}  // namespace braid::cli
