#include "braid/view/event_details.h"

#include <cstdint>
#include <cstdio>

#include "braid/view/time_axis.h"

namespace braid::view {

namespace {

std::string Number(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Bytes(int64_t b) {
  if (b >= (int64_t(1) << 30)) return Number("%.2f GiB", double(b) / double(int64_t(1) << 30));
  if (b >= (1 << 20)) return Number("%.2f MiB", double(b) / double(1 << 20));
  if (b >= (1 << 10)) return Number("%.2f KiB", double(b) / double(1 << 10));
  return std::to_string(b) + " B";
}

}  // namespace

const OpNote* OpOfEvent(const std::string& event_name, const std::vector<OpNote>& ops) {
  return OpOfStep(event_name, ops);
}

std::vector<DetailLine> EventDetails(const Event& e, const std::string& lane_name, int64_t origin_ns,
                                     const std::vector<OpNote>& ops) {
  std::vector<DetailLine> out;
  const int64_t dur = e.end_ns - e.start_ns;
  out.push_back({"kind", std::string(EventKindName(e.kind))});
  out.push_back({"name", e.name});
  if (const OpNote* op = OpOfEvent(e.name, ops)) {
    out.push_back({"op", op->name});
    if (!op->pass.empty()) out.push_back({"pass", op->pass});
    if (!op->method.empty()) out.push_back({"method", op->method});
    if (!op->config.empty()) out.push_back({"config", op->config});
  }
  out.push_back({"rank", std::to_string(e.rank)});
  out.push_back({"lane", std::to_string(e.lane) + (lane_name.empty() ? "" : " (" + lane_name + ")")});
  out.push_back({"iteration", std::to_string(e.iteration)});
  out.push_back({"start", FormatDuration(double(e.start_ns - origin_ns))});
  out.push_back({"duration", FormatDuration(double(dur))});
  if (e.bytes > 0) out.push_back({"bytes", Bytes(e.bytes)});
  if (e.flops > 0) out.push_back({"FLOPs", Number("%.4g", e.flops)});
  if (dur > 0 && e.flops > 0) out.push_back({"achieved", Number("%.1f TFLOP/s", e.flops / double(dur) / 1e3)});
  if (dur > 0 && e.bytes > 0 && e.flops <= 0)
    out.push_back({"achieved", Number("%.1f GB/s", double(e.bytes) / double(dur))});
  if (e.chunk >= 0) out.push_back({"chunk", std::to_string(e.chunk)});
  if (e.step >= 0) out.push_back({"step", std::to_string(e.step)});
  if (e.peer >= 0) out.push_back({"peer", std::to_string(e.peer)});
  if (e.correlation >= 0) out.push_back({"correlation", std::to_string(e.correlation)});
  return out;
}

std::vector<DetailLine> OpSummaryLines(const std::vector<OpNote>& ops) {
  std::vector<DetailLine> out;
  out.emplace_back("GEMM (worst rank, p50)", "time · exposed comm · overlap · config");
  for (const OpNote& op : ops) {
    if (!op.figures) continue;
    const OpFigures& f = *op.figures;
    char overlap[64];
    std::snprintf(overlap, sizeof overlap, " · overlap %.3f", f.overlap_ratio);
    std::string value = FormatDuration(f.time_ns);
    if (f.comm_ns > 0) {
      value += " · exposed ";
      value += FormatDuration(f.exposed_comm_ns);
      value += overlap;
    }
    value += " · ";
    value += op.config.empty() ? op.method : op.config;
    out.emplace_back(op.name, value);
  }
  if (out.size() == 1) out.clear();
  return out;
}

std::string OpPartOfName(const std::string& step_name) {
  const size_t dot = step_name.rfind('.');
  return dot == std::string::npos ? std::string() : step_name.substr(0, dot);
}

}  // namespace braid::view
