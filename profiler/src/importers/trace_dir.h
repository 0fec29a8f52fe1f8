// The trace files of a job given as its directory: `braid import kineto DIR/`.
#pragma once

#include <string>
#include <vector>

#include "braid/budgets.h"
#include "braid/status.h"

namespace braid::importers {

// The entries of `dir` named *.json or *.json.gz (PyTorch's
// *.pt.trace.json[.gz] included), sorted by name, subdirectories not
// entered. What they are (a FIFO named x.json) is the reader's to refuse.
// Invalid naming `dir` when it holds none, more than kMaxTraceFiles or
// cannot be listed.
Result<std::vector<std::string>> ListKinetoTraces(const std::string& dir);

// `paths` with each directory replaced by ListKinetoTraces of it.
Result<std::vector<std::string>> ExpandTraceDirs(const std::vector<std::string>& paths);

}  // namespace braid::importers
