// `braid calibrate --measure --gpu-out FILE.toml [--csv-dir DIR] [--quick]`:
// measures a GPU (braid/gpu_measure.h), writes the CSVs, fits --gpu's file
// to them and prints the errors per file before and after. Flags and
// printing only.
#pragma once

#include <functional>
#include <memory>

#include "braid/gpu_measure.h"
#include "calibrate_command.h"

namespace braid::cli {

using MeasureDeviceOpener = std::function<Result<std::unique_ptr<measure::MeasureDevice>>()>;

// 0 ok; 2 bad input (--gpu-out missing or unwritable, --csv-dir unwritable,
// a bad --gpu), checked before the device is opened, nothing written; 1 no
// device (one line) or a failed measurement.
int CalibrateMeasure(const CalibrateArgs& args, const MeasureDeviceOpener& open_device);

}  // namespace braid::cli
