// The extension module braid._braid. The package's __init__.py re-exports
// it; python/braid/_braid.pyi is its typed signature.
#include <pybind11/pybind11.h>

#include "py_errors.h"
#include "py_preset_table.h"
#include "py_te_ub_cfgs.h"

#ifndef BRAID_VERSION
#define BRAID_VERSION "unknown"
#endif

PYBIND11_MODULE(_braid, m) {
  m.doc() = "Braid's runtime preset loader and TransformerEngine ub_cfgs export (C++ extension).";
  m.attr("__version__") = BRAID_VERSION;
  auto& error = pybind11::register_exception<braid::python::PresetError>(m, "PresetError");
  error.attr("__doc__") =
      "A preset, model or topology file is missing or malformed, or holds no preset for what was asked. "
      "str(e) is the loader's one-line message (\"file:line:col: ...\").";
  error.attr("__module__") = "braid";
  braid::python::BindPresetTable(m);
  braid::python::BindTeUbCfgs(m);
}
