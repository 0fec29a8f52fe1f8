// One executed step, as every backend and importer records it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace braid {

enum class EventKind { kCompute, kComm, kReduce, kCopy, kSync, kMarker };

std::string_view EventKindName(EventKind k);

struct Event {
  int iteration = 0;
  int rank = 0;
  int lane = 0;
  EventKind kind = EventKind::kCompute;
  std::string name;
  int64_t start_ns = 0;  // steady clock (cpu), simulated (sim), GPU clock (cuda)
  int64_t end_ns = 0;
  int64_t bytes = 0;
  double flops = 0;
  int chunk = -1;
  int step = -1;
  int peer = -1;
  int64_t correlation = -1;  // send/recv match id, or CUPTI correlation id
};

}  // namespace braid
