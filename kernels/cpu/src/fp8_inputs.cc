#include "fp8_inputs.h"

#include <cmath>
#include <span>

#include "braid/fp8.h"

namespace braid::cpu {

namespace {

float Amax(const HostMatrix& m) {
  float amax = 0;
  for (float v : m.data) amax = std::fmax(amax, std::fabs(v));
  return amax;
}

void Round(Fp8Format format, HostMatrix& m) {
  if (m.data.empty()) return;  // a compute op's empty slot
  RoundToFp8(format, Fp8ScaleForAmax(format, Amax(m)), std::span<float>(m.data));
}

}  // namespace

void RoundInputsToFp8(DType dtype, RunInputs& in) {
  if (!IsFp8(dtype)) return;
  const Fp8Format format = Fp8FormatOf(dtype);
  for (HostMatrix& a : in.a) Round(format, a);
  for (HostMatrix& b : in.b) Round(format, b);
}

std::string CpuDTypeNote(DType dtype) {
  if (dtype == DType::kFp32) return {};
  const std::string name(DTypeName(dtype));
  if (IsFp8(dtype)) {
    return name + ": every GEMM input is rounded to " + name +
           " with a per-tensor scale from its amax (saturating); the cpu backend multiplies those values in fp32 "
           "and moves fp32";
  }
  return name + " requested: the cpu backend computes and moves fp32";
}

}  // namespace braid::cpu
