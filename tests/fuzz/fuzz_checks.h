// Invariants every successful import must hold; a violation aborts so that
// libFuzzer records the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "braid/gemm_keys.h"
#include "braid/gemm_overlap.h"
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

// The per-GEMM analysis of an import (braid/gemm_overlap.h): every figure in
// range, whatever names, times and lanes the trace holds.
inline void CheckGemmOverlap(const ImportedTrace& t) {
  std::vector<Event> events;
  std::vector<TraceLane> lanes;
  for (const ImportedRank& r : t.ranks) {
    for (const ImportedLane& l : r.lanes) lanes.push_back({r.rank, l.lane, l.name});
    events.insert(events.end(), r.events.begin(), r.events.end());
  }
  GemmOverlapReport g = AnalyzeGemmOverlap(events, lanes);
  // Every row either gets a key or says why not; a shape that maps is one
  // of the given keys' (a block of llama3-8b's shapes at TP 2).
  const std::vector<KeyShape> shapes = {{"qkv_fprop", 1024, 3072, 4096}, {"proj_fprop", 1024, 4096, 2048}};
  AssignKeysByShape(&g, shapes, 2);
  ExplainUnmapped(&g);
  Require(g.unassigned_comm >= 0 && g.unassigned_comm <= g.comm_events, "unassigned comm <= comm events");
  for (const GemmOverlapRow& row : g.rows) {
    Require(row.kernels >= 1 && row.start_ns <= row.end_ns, "a GEMM has kernels and a span");
    Require(row.gemm_ns >= 0 && row.gemm_ns <= row.end_ns - row.start_ns, "gemm time within its span");
    Require(row.overlapped_ns >= 0 && row.overlapped_ns <= row.comm_ns, "0 <= overlapped <= comm");
    Require(row.overlapped_ns <= row.gemm_ns, "overlapped <= gemm time");
    Require(row.exposed_ns == row.comm_ns - row.overlapped_ns, "exposed = comm - overlapped");
    Require((row.comm_ns == 0) == (row.verdict == GemmVerdict::kNoComm), "no comm iff no_comm");
    Require(row.span_ns >= row.end_ns - row.start_ns, "the span holds the GEMM");
    Require(row.key.empty() != row.unmapped_why.empty(), "a key, or why not");
    if (row.key_source == "shape") {
      Require(row.key == "qkv_fprop" || row.key == "proj_fprop", "a shape maps to a given key");
      Require(GemmShapeOfCpuOp(row.op).has_value(), "a shape-mapped GEMM has a shape");
    }
  }
}

}  // namespace braid::fuzz
