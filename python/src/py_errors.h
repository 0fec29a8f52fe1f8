// How the module reports errors to Python. Errors from Braid's loaders (a
// preset, model or topology file, or what it lacks) raise braid.PresetError
// with the library's one-line message; a bad argument value raises
// ValueError (pybind11 raises TypeError for a wrong type).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid::python {

// Thrown inside the bindings; pybind11 turns it into braid.PresetError.
class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` as valid UTF-8, each byte of an invalid sequence (a path's bytes
// that are not UTF-8) written \xNN: what Python makes a str of without a
// UnicodeDecodeError. Every message and name handed to Python goes through it.
std::string Utf8Text(std::string_view text);

// Throws PresetError with s's message unless s is ok.
void ThrowIfPresetError(const Status& s);

// Throws pybind11::value_error with s's message unless s is ok.
void ThrowIfValueError(const Status& s);

// A size argument must be at least 1: "m must be at least 1 (got -4)".
void CheckPositive(long long value, const char* name);

// A TP degree: at least 1 and an int.
int TpArgument(long long value);

}  // namespace braid::python
