// The [error_band] table of GPU and topology files (docs/simulator.md,
// "Error bands"): each figure a relative error in [0, 1], the ones a file
// gives marked measured, and where they come from.
#pragma once

#include <initializer_list>
#include <string>

#include "braid/status.h"
#include "braid/toml_fields.h"

namespace braid {

struct ErrorBandField {
  const char* key;
  double* value;  // set when the file gives it
  bool* assumed;  // cleared when the file gives it
};

// Reads `fields` from `table` (the [error_band] table, its keys already
// checked) and returns its required `source`; errors name file, line and field.
Result<std::string> ReadErrorBandFields(const TomlValue& table, const TomlFields& f,
                                        std::initializer_list<ErrorBandField> fields);

}  // namespace braid
