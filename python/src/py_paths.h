// File arguments: str, bytes or os.PathLike, as Python's own open() takes.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace braid::python {

// The path's bytes as the OS takes them (os.fsencode: a str with bytes that
// are not UTF-8, b'\xff\xfe.toml' decoded with surrogate escapes, goes back
// to those bytes); TypeError for anything but str, bytes or os.PathLike. An
// embedded NUL is a ValueError, as open() has it: the C++ readers would stop
// at the NUL and silently read another file (a path "good.toml\0x" loaded
// good.toml).
inline std::string PathArgument(const pybind11::object& path) {
  std::string text = pybind11::module_::import("os").attr("fsencode")(path).cast<std::string>();
  if (text.find('\0') != std::string::npos) throw pybind11::value_error("embedded null byte in the path");
  return text;
}

}  // namespace braid::python
