// The kernel-choice table (braid/sim_kernel_log.h) as `calibrate` prints it
// in --json: one object per logged shape.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "braid/sim_kernel_log.h"

namespace braid::cli {

nlohmann::json KernelChoiceJson(const std::vector<sim::KernelChoiceRow>& rows);

}  // namespace braid::cli
