// braid.PresetTable and braid.LookupResult: the runtime loader (braid/presets.h)
// seen from Python. A table is immutable once loaded; a result refers into
// its table and keeps it alive.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "braid/presets.h"

namespace braid::python {

struct PyLookupResult {
  std::shared_ptr<const PresetTable> table;  // owns *preset
  const Preset* preset = nullptr;
  PresetMatch match = PresetMatch::kNone;
  double distance = 0;
};

class PyPresetTable {
 public:
  PyPresetTable(PresetTable table, std::string origin);

  // Raise PresetError with the loader's message on a missing or bad file.
  static PyPresetTable Load(const std::string& path);
  static PyPresetTable Parse(const std::string& text, const std::string& origin);

  // nullopt when nothing matches. gpu / topology absent: the table's only
  // one (ValueError when it holds several). ValueError on a bad op, dtype or
  // size. The GIL is released while the C++ lookup runs.
  std::optional<PyLookupResult> Lookup(const std::string& op, int64_t m, int64_t n, int64_t k, int64_t tp,
                                       const std::string& dtype, const std::optional<std::string>& gpu,
                                       const std::optional<std::string>& topology,
                                       const std::string& pass = "fprop") const;

  // The DP preset of exactly this key as a dict, or None (braid/presets.h LookupDp).
  std::optional<pybind11::dict> LookupDp(const std::string& model, int64_t tokens, int64_t tp, int64_t dp,
                                         const std::string& zero, const std::string& dtype,
                                         const std::optional<std::string>& gpu,
                                         const std::optional<std::string>& topology) const;
  const PresetTable& table() const { return *table_; }
  size_t size() const { return table_->size(); }
  const std::string& origin() const { return origin_; }  // the path loaded, or parse()'s origin

 private:
  std::shared_ptr<const PresetTable> table_;
  std::vector<std::pair<std::string, std::string>> places_;  // distinct (gpu, topology), in file order
  std::string origin_;
};

// Whether the calling thread's latest Lookup ran without the GIL (for tests).
bool LastLookupReleasedGil();

// {"algorithm", "chunks", "splits", "streams", "comm_sms", "comm_engine",
// "comm_priority"[, "comm_dtype" where set]}: the same keys and values as
// `braid presets lookup --json`.
pybind11::dict ConfigDict(const OverlapConfig& c);
// {"gpu", "topology", "op", "m", "n", "k", "dtype", "tp"[, "layer"]}.
pybind11::dict KeyDict(const PresetKey& k);

void BindPresetTable(pybind11::module_& m);

}  // namespace braid::python
