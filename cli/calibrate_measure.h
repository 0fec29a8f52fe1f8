// `braid calibrate --measure --gpu-out FILE.toml [--csv-dir DIR] [--quick]`:
// the flags of a calibration (braid/gpu_calibration.h), its progress lines
// and the errors per file before and after the fit. Flags and printing only.
#pragma once

#include "calibrate_command.h"

namespace braid::cli {

// 0 ok; 2 bad input (--gpu-out missing or unwritable, --csv-dir unwritable,
// a bad --gpu), checked before the device is opened, nothing written; 1 no
// device (one line) or a failed measurement.
int CalibrateMeasure(const CalibrateArgs& args);

}  // namespace braid::cli
