#include "braid/sim_measured.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "braid/safe_read.h"

namespace braid::sim {

namespace {

namespace fs = std::filesystem;

// One CSV file: a header row naming columns, then rows of fields.
class Csv {
 public:
  static Result<Csv> Read(const fs::path& path) {
    BRAID_ASSIGN_OR_RETURN(auto text, ReadUserFile(path.string(), "CSV file"));
    std::istringstream in(text);
    Csv c;
    c.name_ = path.filename().string();
    std::string line;
    int row = 0;
    while (std::getline(in, line)) {
      ++row;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      std::vector<std::string> fields;
      std::stringstream ss(line);
      for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
      if (c.header_.empty()) {
        for (size_t i = 0; i < fields.size(); ++i) c.header_[fields[i]] = i;
      } else {
        c.rows_.push_back(std::move(fields));
        c.lines_.push_back(row);
      }
    }
    if (c.header_.empty()) return Status::Invalid(c.name_ + ": empty file (no header row)");
    return c;
  }

  Status Require(std::initializer_list<const char*> columns) const {
    for (const char* col : columns) {
      if (!header_.count(col)) return Status::Invalid(name_ + ": missing column '" + col + "'");
    }
    return Status::Ok();
  }
  size_t rows() const { return rows_.size(); }
  Result<std::string> Text(size_t r, const char* col) const {
    const size_t i = header_.at(col);
    if (i >= rows_[r].size()) return Status::Invalid(Where(r, col) + ": missing value");
    return rows_[r][i];
  }
  // A finite number > 0 (>= 0 when zero_ok).
  Result<double> Number(size_t r, const char* col, bool zero_ok = false) const {
    BRAID_ASSIGN_OR_RETURN(auto t, Text(r, col));
    double v = 0;
    const char* end = t.data() + t.size();
    auto [p, ec] = std::from_chars(t.data(), end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v)) {
      return Status::Invalid(Where(r, col) + ": '" + t + "' is not a number");
    }
    if (v < 0 || (v == 0 && !zero_ok)) {
      return Status::Invalid(Where(r, col) + ": must be " + (zero_ok ? "at least 0" : "positive") + ", got " + t);
    }
    return v;
  }
  Result<int64_t> Integer(size_t r, const char* col, bool zero_ok = false) const {
    BRAID_ASSIGN_OR_RETURN(auto v, Number(r, col, zero_ok));
    if (v != std::floor(v) || v > 1e12) return Status::Invalid(Where(r, col) + ": must be a whole number");
    return int64_t(v);
  }
  const std::string& name() const { return name_; }
  std::string Where(size_t r, const char* col) const { return name_ + ":" + std::to_string(lines_[r]) + ": " + col; }

 private:
  std::string name_;
  std::map<std::string, size_t> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

// fp8: every dimension a multiple of 16 (what cuBLASLt's FP8 kernels take).
Status ReadGemm(const Csv& c, bool fp8, std::vector<MeasuredGemm>* out) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "time_ms"}));
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredGemm g;
    for (auto [col, dst] : {std::pair{"m", &g.m}, {"n", &g.n}, {"k", &g.k}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col));
      if (fp8 && v % 16 != 0) {
        return Status::Invalid(c.Where(r, col) + ": " + std::to_string(v) +
                               " is not a multiple of 16 (cuBLASLt's FP8 GEMMs need m, n and k multiples of 16)");
      }
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto t, c.Number(r, "time_ms"));
    g.time_ns = t * 1e6;
    out->push_back(g);
  }
  return Status::Ok();
}

Status ReadHeld(const Csv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "holder", "held_sms", "time_ms", "alone_ms"}));
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredHeldGemm h;
    for (auto [col, dst] : {std::pair{"m", &h.m}, {"n", &h.n}, {"k", &h.k}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col));
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto holder, c.Text(r, "holder"));
    if (holder != "spin" && holder != "copy") {
      return Status::Invalid(c.Where(r, "holder") + ": must be spin or copy, got '" + holder + "'");
    }
    h.copying = holder == "copy";
    BRAID_ASSIGN_OR_RETURN(auto held, c.Integer(r, "held_sms", true));
    if (held >= gpu.sm_count) {
      return Status::Invalid(c.Where(r, "held_sms") + ": " + std::to_string(held) + " is not below " + gpu.name +
                             "'s " + std::to_string(gpu.sm_count) + " SMs");
    }
    h.held_sms = int(held);
    BRAID_ASSIGN_OR_RETURN(auto t, c.Number(r, "time_ms"));
    BRAID_ASSIGN_OR_RETURN(auto a, c.Number(r, "alone_ms"));
    h.time_ns = t * 1e6;
    h.alone_ns = a * 1e6;
    b->held.push_back(h);
  }
  return Status::Ok();
}

Status ReadFused(const Csv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "comm_sms", "gemm_ms", "bytes", "transfer_ms"}));
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredFused f;
    for (auto [col, dst] : {std::pair{"m", &f.m}, {"n", &f.n}, {"k", &f.k}, {"bytes", &f.bytes}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col));
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto s, c.Integer(r, "comm_sms"));
    if (s >= gpu.sm_count) {
      return Status::Invalid(c.Where(r, "comm_sms") + ": " + std::to_string(s) + " leaves no SMs of " + gpu.name +
                             "'s " + std::to_string(gpu.sm_count) + " for the GEMM");
    }
    f.comm_sms = int(s);
    BRAID_ASSIGN_OR_RETURN(auto g, c.Number(r, "gemm_ms"));
    BRAID_ASSIGN_OR_RETURN(auto t, c.Number(r, "transfer_ms"));
    f.gemm_ns = g * 1e6;
    f.transfer_ns = t * 1e6;
    b->fused.push_back(f);
  }
  return Status::Ok();
}

Status ReadCopyBw(const Csv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"sms", "gbs_read_plus_write"}));
  for (size_t r = 0; r < c.rows(); ++r) {
    BRAID_ASSIGN_OR_RETURN(auto s, c.Integer(r, "sms"));
    if (s > gpu.sm_count) {
      return Status::Invalid(c.Where(r, "sms") + ": " + std::to_string(s) + " is more than " + gpu.name + "'s " +
                             std::to_string(gpu.sm_count) + " SMs");
    }
    BRAID_ASSIGN_OR_RETURN(auto g, c.Number(r, "gbs_read_plus_write"));
    b->copy_bw.push_back({int(s), g});
  }
  return Status::Ok();
}

// what,value tables: every name in `want` must be present.
Status ReadPairs(const Csv& c, std::initializer_list<std::pair<const char*, double*>> want) {
  BRAID_RETURN_IF_ERROR(c.Require({"what", "value"}));
  for (auto [name, dst] : want) {
    bool found = false;
    for (size_t r = 0; r < c.rows() && !found; ++r) {
      BRAID_ASSIGN_OR_RETURN(auto w, c.Text(r, "what"));
      if (w != name) continue;
      BRAID_ASSIGN_OR_RETURN(auto v, c.Number(r, "value"));
      *dst = v;
      found = true;
    }
    if (!found) return Status::Invalid(c.name() + ": no row '" + name + "'");
  }
  return Status::Ok();
}

}  // namespace

Result<MeasuredBoard> ReadMeasuredBoard(const std::string& dir, const GpuSpec& gpu) {
  MeasuredBoard b;
  b.dir = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::Invalid("measurements folder '" + dir + "' does not exist");
  int found = 0;
  const auto open = [&](const char* file) -> Result<Csv> {
    const fs::path p = fs::path(dir) / file;
    if (!fs::exists(p, ec)) return Status::NotFound(file);
    ++found;
    return Csv::Read(p);
  };
  if (auto c = open("gemm_bf16.csv"); c.ok()) {
    BRAID_RETURN_IF_ERROR(ReadGemm(*c, false, &b.gemm));
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (auto c = open("gemm_fp8.csv"); c.ok()) {
    BRAID_RETURN_IF_ERROR(ReadGemm(*c, true, &b.gemm_fp8));
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (auto c = open("gemm_beside_held_sms.csv"); c.ok()) {
    BRAID_RETURN_IF_ERROR(ReadHeld(*c, gpu, &b));
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (auto c = open("copy_kernel_bw.csv"); c.ok()) {
    BRAID_RETURN_IF_ERROR(ReadCopyBw(*c, gpu, &b));
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (auto c = open("copy_engine.csv"); c.ok()) {
    MeasuredCopyEngine& e = b.copy_engine;
    double alone_ms = 0, beside_ms = 0, copy_ms = 0;
    BRAID_RETURN_IF_ERROR(ReadPairs(*c, {{"gemm_8192_cubed_alone_ms", &alone_ms},
                                         {"gemm_8192_cubed_beside_ce_copy_ms", &beside_ms},
                                         {"ce_d2d_copy_2GiB_ms", &copy_ms},
                                         {"ce_gbs_read_plus_write", &e.copy_gbs}}));
    e.gemm_alone_ns = alone_ms * 1e6;
    e.gemm_beside_ns = beside_ms * 1e6;
    e.copy_ns = copy_ms * 1e6;
    e.present = true;
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (auto c = open("launch_gaps.csv"); c.ok()) {
    BRAID_RETURN_IF_ERROR(c->Require({"what", "ns_p50"}));
    MeasuredLaunch& l = b.launch;
    for (size_t r = 0; r < c->rows(); ++r) {
      BRAID_ASSIGN_OR_RETURN(auto w, c->Text(r, "what"));
      BRAID_ASSIGN_OR_RETURN(auto v, c->Number(r, "ns_p50"));
      if (w == "same_stream_start_to_start") l.same_stream_ns = v;
      if (w == "cross_stream_event_wait_start_to_start") l.cross_stream_ns = v;
      if (w == "graph_same_stream_start_to_start") l.graph_same_stream_ns = v;
      if (w == "graph_cross_stream_event_wait_start_to_start") l.graph_cross_stream_ns = v;
    }
    l.present = l.same_stream_ns > 0 && l.cross_stream_ns > 0;
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (auto c = open("fused_kernel.csv"); c.ok()) {
    BRAID_RETURN_IF_ERROR(ReadFused(*c, gpu, &b));
  } else if (c.status().code() != StatusCode::kNotFound) {
    return c.status();
  }
  if (found == 0) {
    return Status::Invalid("measurements folder '" + dir +
                           "' has none of gemm_bf16.csv, gemm_beside_held_sms.csv, copy_kernel_bw.csv, "
                           "copy_engine.csv, launch_gaps.csv, fused_kernel.csv, gemm_fp8.csv");
  }
  return b;
}

}  // namespace braid::sim
