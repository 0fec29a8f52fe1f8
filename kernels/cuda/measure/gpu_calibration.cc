// One calibration, start to end (braid/gpu_calibration.h).
#include "braid/gpu_calibration.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "braid/gpu_files.h"
#include "braid/safe_write.h"

namespace braid::measure {

namespace {

namespace fs = std::filesystem;

Status WritableDir(const std::string& field, const std::string& path, const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::Invalid(field + " '" + OneLine(path) + "': directory '" + OneLine(dir.string()) +
                           "' does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid(field + " '" + OneLine(path) + "': directory '" + OneLine(dir.string()) +
                           "' is not writable");
  }
  return Status::Ok();
}

fs::path ParentOf(const std::string& path) {
  const fs::path p = fs::path(path).parent_path();
  return p.empty() ? fs::path(".") : p;
}

// The resolved GPU file path; Invalid unless it can be written.
Result<std::string> CheckGpuOut(const std::string& path) {
  if (path.empty()) return Status::Invalid("`gpu_out` is empty: give the GPU file to write");
  if (path == "-") return Status::Invalid("`gpu_out`: give a file, not '-'");
  auto target = ResolveWriteTarget(path);
  if (!target.ok()) return Status::Invalid("`gpu_out`: " + target.status().message());
  BRAID_RETURN_IF_ERROR(WritableDir("`gpu_out`", path, ParentOf(*target)));
  return *target;
}

Status CheckCsvDir(const std::string& dir) {
  if (dir.empty()) return Status::Ok();  // a new folder beside gpu_out
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return Status::Invalid("`csv_dir` '" + OneLine(dir) + "' is not a directory");
    if (::access(dir.c_str(), W_OK) != 0) return Status::Invalid("`csv_dir` '" + OneLine(dir) + "' is not writable");
    return Status::Ok();
  }
  return WritableDir("`csv_dir`", dir, ParentOf(dir));
}

// csv_dir, created when missing, or a new folder beside the GPU file.
Result<std::string> MakeCsvDir(const std::string& csv_dir, const std::string& gpu_out) {
  std::error_code ec;
  if (!csv_dir.empty()) {
    if (!fs::exists(csv_dir, ec) && !fs::create_directory(csv_dir, ec)) {
      return Status::Internal("cannot create `csv_dir` '" + OneLine(csv_dir) + "': " + ec.message());
    }
    return csv_dir;
  }
  std::string tmpl = (ParentOf(gpu_out) / (fs::path(gpu_out).stem().string() + "-measured-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::Internal("cannot create a folder for the CSVs beside '" + OneLine(gpu_out) + "'");
  }
  return tmpl;
}

}  // namespace

Status CheckCalibrationRequest(const CalibrationRequest& request) {
  BRAID_RETURN_IF_ERROR(CheckGpuOut(request.gpu_out).status());
  return CheckCsvDir(request.csv_dir);
}

Result<Calibration> CalibrateDevice(const CalibrationRequest& request, const MeasureDeviceOpener& open_device,
                                    const CalibrationProgress& progress) {
  // Bad input first: nothing is opened, measured or written.
  auto gpu_out = CheckGpuOut(request.gpu_out);
  if (!gpu_out.ok()) return gpu_out.status();
  BRAID_RETURN_IF_ERROR(CheckCsvDir(request.csv_dir));
  auto base = LoadGpu(request.base_gpu);
  if (!base.ok()) return base.status();

  auto device = open_device();
  if (!device.ok()) return Status::Unavailable(device.status().message());
  MeasureDevice& d = **device;
  MeasurePlan plan = DefaultMeasurePlan(d.SmCount(), request.quick);
  plan.fused_engine = request.fused_engine;
  BRAID_RETURN_IF_ERROR(CheckFusedEngineOn(d, plan));
  if (progress.planned) progress.planned(d, plan);

  Calibration out;
  auto dir = MakeCsvDir(request.csv_dir, *gpu_out);
  if (!dir.ok()) return dir.status();
  out.csv_dir = *dir;
  out.gpu_out = *gpu_out;
  auto m = RunMeasurements(d, plan, progress.stage);
  if (!m.ok()) return Status::Internal(m.status().message());
  out.measurements = std::move(*m);
  BRAID_RETURN_IF_ERROR(WriteMeasurementCsvs(out.measurements, out.csv_dir));

  if (progress.fitting) progress.fitting();
  sim::FitOptions fit_options;
  if (request.quick) fit_options.chains = 2, fit_options.iterations = 4000;
  auto fit = FitMeasuredGpu(*base, out.csv_dir, out.measurements, fit_options);
  if (!fit.ok()) return fit.status();
  out.fit = std::move(*fit);
  BRAID_RETURN_IF_ERROR(WriteFileAtomically(out.gpu_out, out.fit.toml));
  return out;
}

}  // namespace braid::measure
