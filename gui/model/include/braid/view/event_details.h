// What the details panel shows of one event: every stored field, and the
// achieved rate (TFLOP/s for compute, GB/s for transfers).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "braid/event.h"

namespace braid::view {

using DetailLine = std::pair<std::string, std::string>;  // field, value

// `origin_ns` is subtracted from start times (the timeline's origin).
std::vector<DetailLine> EventDetails(const Event& e, const std::string& lane_name, int64_t origin_ns);

}  // namespace braid::view
