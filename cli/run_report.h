// How a run is shown: the JSON object of docs/design.md's contract and a table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/run_json.h"    // RunJson: the --json object
#include "braid/run_record.h"  // RunRecord, LayerOpNote

namespace braid::cli {

std::string RunTable(const RunRecord& r);

// A layer run's per-GEMM table (each op's time, exposed comm, overlap and
// config, from its layer note); empty when no op has figures.
std::string OpTable(const std::vector<LayerOpNote>& ops);

// "12.3 µs", "4.56 ms": three significant digits in a unit that fits.
std::string FormatDuration(double ns);

// ns with its sign: "-1.20 µs".
std::string SignedDuration(double ns);

// The table's "gap" line: makespan − lower bound, split into the bound
// side's stretch and idle time (braid/bound_gap.h).
std::string GapLine(const BoundGap& g);

// The display columns of UTF-8 `text` ("µ" is two bytes, one column).
size_t DisplayColumns(const std::string& text);

// Left-justifies to `width` display columns.
std::string Pad(const std::string& text, size_t width);

}  // namespace braid::cli
