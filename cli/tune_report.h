// How `braid tune` shows what the session found (braid/tune.h): the table
// and the JSON of docs/design.md's contract.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "braid/tune.h"

namespace braid::cli {

// Where the winners went.
struct PresetsWritten {
  std::string out;  // the preset file
  int count = 0;
};

nlohmann::json TuneJson(const TuneSummary& s, const PresetsWritten& written);
std::string TuneTable(const TuneSummary& s, const PresetsWritten& written);

}  // namespace braid::cli
