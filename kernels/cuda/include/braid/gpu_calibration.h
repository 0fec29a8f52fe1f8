// One calibration of a GPU, start to end (what `braid calibrate --measure`
// runs): check where the files go, open the device, measure the plan
// (braid/gpu_measure.h), write the CSVs, fit a base GPU file to them and
// write the fitted file atomically.
//
// Errors, one line each, naming the request's fields in backticks
// (cli/field_flags.h):
//   Invalid      bad input (gpu_out, csv_dir, base_gpu): checked before the
//                device is opened; nothing is opened, measured or written.
//                Also a fused engine the opened device cannot run on the
//                plan's points (CheckFusedEngineOn): nothing measured or written.
//   Unavailable  the device could not be opened (whatever the opener said);
//                nothing is written.
//   Internal     a measurement, the CSVs, the fit or the write failed; the
//                CSVs already written stay.
// Threading: one call at a time per device; the callbacks run on the
// calling thread. Never throws.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "braid/gpu_measure.h"

namespace braid::measure {

struct CalibrationRequest {
  std::string gpu_out;  // the fitted GPU file to write (required; not "-")
  // Where the CSVs go: a folder, created when missing (its parent must
  // exist). Empty: a new folder "<gpu_out's stem>-measured-XXXXXX" beside
  // gpu_out.
  std::string csv_dir;
  std::string base_gpu = "h100-sxm";  // the GPU name or file the fit starts from
  bool quick = false;                 // DefaultMeasurePlan's small grid and a shorter fit
  // The fused kernel the fused points time (MeasurePlan::fused_engine),
  // whose figures the fitted file then carries.
  FusedEngine fused_engine = FusedEngine::kTasks;
};

// What happens while it runs; every callback is optional.
struct CalibrationProgress {
  // The device is open and the plan made; nothing measured yet.
  std::function<void(const MeasureDevice& device, const MeasurePlan& plan)> planned;
  ProgressFn stage;               // after each measurement (RunMeasurements)
  std::function<void()> fitting;  // the CSVs are written; the fit starts
};

struct Calibration {
  Measurements measurements;
  std::string csv_dir;  // the folder the CSVs were written to
  std::string gpu_out;  // the file written (symlinks followed)
  MeasuredFit fit;
};

using MeasureDeviceOpener = std::function<Result<std::unique_ptr<MeasureDevice>>()>;

// Invalid (naming the field) unless gpu_out can be written and csv_dir is a
// writable folder or can be made one. Looks at the file system only.
Status CheckCalibrationRequest(const CalibrationRequest& request);

// The whole calibration on the device `open_device` returns.
Result<Calibration> CalibrateDevice(const CalibrationRequest& request, const MeasureDeviceOpener& open_device,
                                    const CalibrationProgress& progress);

}  // namespace braid::measure
