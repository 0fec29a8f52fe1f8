#include "py_errors.h"

#include <pybind11/pybind11.h>

#include <limits>

namespace braid::python {

void ThrowIfPresetError(const Status& s) {
  if (!s.ok()) throw PresetError(s.message());
}

void ThrowIfValueError(const Status& s) {
  if (!s.ok()) throw pybind11::value_error(s.message());
}

void CheckPositive(long long value, const char* name) {
  if (value < 1) {
    throw pybind11::value_error(std::string(name) + " must be at least 1 (got " + std::to_string(value) + ")");
  }
}

int TpArgument(long long value) {
  CheckPositive(value, "tp");
  if (value > std::numeric_limits<int>::max()) {
    throw pybind11::value_error("tp must be at most " + std::to_string(std::numeric_limits<int>::max()) + " (got " +
                                std::to_string(value) + ")");
  }
  return int(value);
}

}  // namespace braid::python
