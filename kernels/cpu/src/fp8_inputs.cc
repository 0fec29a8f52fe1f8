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

// Returns the scale used; 0 for a compute op's empty slot.
float Round(Fp8Format format, HostMatrix& m) {
  if (m.data.empty()) return 0;
  const float scale = Fp8ScaleForAmax(format, Amax(m));
  RoundToFp8(format, scale, std::span<float>(m.data));
  return scale;
}

}  // namespace

void RoundInputsToFp8(DType dtype, RunInputs& in) {
  if (!IsFp8(dtype)) return;
  const Fp8Format format = Fp8FormatOf(dtype);
  in.a_scales.clear();
  for (HostMatrix& a : in.a) in.a_scales.push_back(Round(format, a));
  for (HostMatrix& b : in.b) Round(format, b);
}

std::vector<WireFormat> RunWireFormats(const Plan& plan, const RunInputs& in) {
  return OpWireFormats(plan, in.a_scales, Fp8FormatOf(plan.workload.dtype));
}

namespace {

// What the transfers of op i move, or empty for an op without any.
std::string OpMoves(const Plan& plan, size_t i, const WireFormat& wire) {
  const Workload& w = plan.op_workload(int(i));
  const bool communicates = plan.is_layer() ? plan.ops[i].gemm && !plan.ops[i].local : w.tp > 1;
  if (!communicates) return {};
  const std::string what = w.op == Op::kAgGemm ? "all-gathers of A" : "partial sums";
  if (!wire.fp8) {
    const DType comm = w.CommDType();
    if (comm == DType::kFp32) return what + " move fp32";
    return what + " (" + std::string(DTypeName(comm)) + " requested) move fp32, 4 bytes a value";
  }
  const std::string fmt(Fp8FormatName(wire.format));
  if (wire.exact()) {
    return what + " move one " + fmt + " byte a value under A's tensor scale (bit-exact) plus a 4-byte scale a message";
  }
  return what + " move one " + fmt +
         " byte a value under the message's amax scale plus a 4-byte scale a message, added in fp32 where received";
}

}  // namespace

std::string CpuDTypeNote(const Plan& plan, const std::vector<WireFormat>& wires) {
  const DType dtype = plan.workload.dtype;
  std::vector<std::string> moves;
  bool any_fp8_wire = false;
  for (size_t i = 0; i < wires.size(); ++i) {
    any_fp8_wire = any_fp8_wire || wires[i].fp8;
    std::string m = OpMoves(plan, i, wires[i]);
    if (m.empty()) continue;
    bool seen = false;
    for (const std::string& x : moves) seen = seen || x == m;
    if (!seen) moves.push_back(std::move(m));
  }
  if (dtype == DType::kFp32 && !any_fp8_wire) return {};
  const std::string name(DTypeName(dtype));
  if (!IsFp8(dtype) && !any_fp8_wire) return name + " requested: the cpu backend computes and moves fp32";
  std::string note = name + ": ";
  if (IsFp8(dtype)) {
    note += "every GEMM input is rounded to " + name +
            " with a per-tensor scale from its amax (saturating); the cpu backend multiplies those values in fp32";
  } else {
    note += "the cpu backend computes fp32";
  }
  for (const std::string& m : moves) note += "; " + m;
  return note;
}

}  // namespace braid::cpu
