// braid._te_ub_cfgs: a preset file's configs for one model's transformer
// block as the dict TransformerEngine's initialize_ub(ub_cfgs=...) takes,
// built from the same library code as `braid presets export-te`
// (BuildTeUbCfgs), plus the notes that export-te writes as comments.
// The Python wrapper braid.te_ub_cfgs returns them as a TeUbCfgs tuple.
#pragma once

#include <pybind11/pybind11.h>

namespace braid::python {

void BindTeUbCfgs(pybind11::module_& m);

}  // namespace braid::python
