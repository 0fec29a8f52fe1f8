#include "fp8_inputs.h"

#include <cstdio>
#include <optional>
#include <span>

#include "braid/fp8.h"

namespace braid::cpu {

namespace {

// Returns the scale used (`fixed`, else the tensor's amax one); 0 for a
// compute op's empty slot.
float Round(Fp8Format format, HostMatrix& m, const std::optional<float>& fixed) {
  if (m.data.empty()) return 0;
  return RoundTensorToFp8(format, std::span<float>(m.data), fixed);
}

}  // namespace

void RoundInputsToFp8(DType dtype, RunInputs& in, const Fp8Scaling& scaling) {
  if (!IsFp8(dtype)) return;
  const Fp8Format format = Fp8FormatOf(dtype);
  in.a_scales.clear();
  for (HostMatrix& a : in.a) in.a_scales.push_back(Round(format, a, scaling.a));
  for (HostMatrix& b : in.b) Round(format, b, scaling.b);
}

Fp8Scaling Fp8ScalingOf(const RunOptions& options) {
  Fp8Scaling s;
  if (options.fp8_scale_a) s.a = float(*options.fp8_scale_a);
  if (options.fp8_scale_b) s.b = float(*options.fp8_scale_b);
  return s;
}

std::vector<WireFormat> RunWireFormats(const Plan& plan, const RunInputs& in) {
  return OpWireFormats(plan, in.a_scales, Fp8FormatOf(plan.workload.dtype));
}

namespace {

std::string FormatScale(float scale) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", double(scale));
  return text;
}

// What the transfers of op i move, or empty for an op without any.
std::string OpMoves(const Plan& plan, size_t i, const WireFormat& wire) {
  const Workload& w = plan.op_workload(int(i));
  const bool communicates = plan.is_layer() ? plan.ops[i].gemm && !plan.ops[i].local : w.tp > 1;
  if (!communicates) return {};
  const Algorithm a = plan.op_config(int(i)).algorithm;
  const std::string what = IsUlysses(a) ? (CommMovesA(w.op, a) ? "all-to-alls of A" : "all-to-alls of products")
                                        : (w.op == Op::kAgGemm ? "all-gathers of A" : "partial sums");
  if (!wire.fp8) {
    const DType comm = plan.op_comm_dtype(int(i));
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

std::string CpuDTypeNote(const Plan& plan, const std::vector<WireFormat>& wires, const Fp8Scaling& scaling) {
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
    auto scale_of = [](const std::optional<float>& fixed) {
      return fixed.has_value() ? "the fixed scale " + FormatScale(*fixed) : std::string("a scale from its amax");
    };
    note += "every GEMM input is rounded to " + name + " (A with " + scale_of(scaling.a) + ", B with " +
            scale_of(scaling.b) + "; saturating); the cpu backend multiplies those values in fp32";
  } else {
    note += "the cpu backend computes fp32";
  }
  for (const std::string& m : moves) note += "; " + m;
  return note;
}

}  // namespace braid::cpu
