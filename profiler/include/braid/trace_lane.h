// A lane's name, as a trace writer labels it and a GEMM analysis reads it:
// one type for both (braid/chrome_trace.h, braid/gemm_overlap.h), so that a
// file may use both.
#pragma once

#include <string>

namespace braid {

struct TraceLane {
  int rank = 0;
  int lane = 0;
  std::string name;
};

}  // namespace braid
