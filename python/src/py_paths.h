// File arguments: str, bytes or os.PathLike, as Python's own open() takes.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace braid::python {

// os.fsdecode(path); TypeError for anything else.
inline std::string PathArgument(const pybind11::object& path) {
  return pybind11::module_::import("os").attr("fsdecode")(path).cast<std::string>();
}

}  // namespace braid::python
