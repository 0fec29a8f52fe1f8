// The cuda backend as one process of an mpirun job (CudaBackend with a
// Launcher of world size > 1), and the run-setup pieces it shares with the
// in-process run (cuda_backend.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "braid/cuda_backend.h"
#include "braid/host_matrix.h"
#include "braid/launcher.h"

namespace braid::cuda {

// Devices, dtype, SM budget, peer access: the checks that need the hardware,
// before anything is allocated. `device` < 0: every rank runs in this
// process (rank r on device r, or all on device 0 in loopback); else this
// process runs one rank on `device` (its local rank). Fills `props` of the
// device that counts and adds notes to `out`.
Status CheckDevices(const Plan& plan, const CudaBackendOptions& o, CudaApi& api, RunOutput& out, DeviceProps& props,
                    int device);

// One A and B per GEMM op, rounded to the dtype: the device and the
// reference see the same inputs (every process makes the same ones).
// FP8: each matrix is quantized with a per-tensor scale
// (Fp8ScaleForAmax of its amax, or options.fp8_scale_a / _b where set,
// saturating; B in Fp8WeightDType) and holds the
// dequantized values; `scales` gets those scales, index 2·op (A) and
// 2·op + 1 (B), 1 for other dtypes. One scale per tensor across ranks: an
// all-gathered A is one cuBLASLt operand with one A_SCALE_POINTER.
// FP8 runs: which scales MakeInputs cast A and B with ("FP8 scales: A fixed
// 64, B from each tensor's amax"); empty for other dtypes.
std::string Fp8ScalesNote(const Plan& plan, const RunOptions& options);

void MakeInputs(const Plan& plan, const RunOptions& options, std::vector<HostMatrix>& a, std::vector<HostMatrix>& b,
                std::vector<float>& scales);

// This process runs rank world.rank() of `plan` on its local device; rank 0
// returns every rank's events (on its own clock) and the verdict over ranks,
// the others the same iteration times and verdict and no events. Bad input
// (--tp against the world, loopback, too few GPUs) is agreed on by every
// process before anything runs.
Result<RunOutput> RunAsProcess(const Plan& plan, const RunOptions& options, const CudaBackendOptions& o,
                               const CudaSeams& seams, Launcher& world);

}  // namespace braid::cuda
