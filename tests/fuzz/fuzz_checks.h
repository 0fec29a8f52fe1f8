// Invariants every successful import must hold; a violation aborts so that
// libFuzzer records the input.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "braid/trace_import.h"

namespace braid::fuzz {

inline void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

inline void CheckTrace(const ImportedTrace& t) {
  Require(!t.ranks.empty(), "at least one rank");
  for (const ImportedRank& r : t.ranks) {
    Require(r.world > r.rank && r.rank >= 0, "0 <= rank < world");
    const HtaFigures& h = r.hta;
    Require(h.comm >= 0 && h.compute >= 0 && h.overlap >= 0, "figures >= 0");
    Require(h.overlap <= h.comm && h.overlap <= h.compute, "overlap <= comm, compute");
    for (double p : {h.overlap_pct, h.idle_pct, h.compute_pct}) Require(p >= 0 && p <= 100, "0 <= pct <= 100");
    for (size_t i = 0; i < r.events.size(); ++i) {
      const Event& e = r.events[i];
      Require(e.start_ns <= e.end_ns, "start <= end");
      Require(e.lane >= 0 && size_t(e.lane) < r.lanes.size(), "lane exists");
      Require(e.rank == r.rank, "event rank");
      Require(i == 0 || r.events[i - 1].start_ns <= e.start_ns, "events sorted");
    }
  }
}

}  // namespace braid::fuzz
