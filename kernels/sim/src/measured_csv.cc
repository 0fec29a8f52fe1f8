#include "measured_csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace braid::sim {

namespace {

std::vector<std::string> SplitFields(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    fields.emplace_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace

Result<MeasuredCsv> MeasuredCsv::Parse(std::string_view text, std::string name) {
  MeasuredCsv c;
  c.name_ = std::move(name);
  std::vector<std::string> header;
  int line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find('\0') != std::string_view::npos) {
      return Status::Invalid(c.name_ + ":" + std::to_string(line_no) + ": a NUL byte (not a text CSV file)");
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<std::string> fields = SplitFields(line);
    if (header.empty()) {
      header = std::move(fields);
      for (size_t i = 0; i < header.size(); ++i) c.header_.emplace(header[i], i);
      continue;
    }
    if (fields.size() > header.size()) {
      return Status::Invalid(c.name_ + ":" + std::to_string(line_no) + ": " + std::to_string(fields.size()) +
                             " fields, but the header names " + std::to_string(header.size()) + " columns");
    }
    c.rows_.push_back(std::move(fields));
    c.lines_.push_back(line_no);
  }
  if (header.empty()) return Status::Invalid(c.name_ + ": empty file (no header row)");
  if (c.rows_.empty())
    return Status::Invalid(c.name_ + ": a header but no rows (leave out a file with no measurements)");
  return c;
}

Status MeasuredCsv::Require(std::initializer_list<const char*> columns) const {
  for (const char* col : columns) {
    if (header_.find(col) == header_.end()) return Status::Invalid(name_ + ": missing column '" + col + "'");
  }
  return Status::Ok();
}

std::string MeasuredCsv::At(size_t r) const { return name_ + ":" + std::to_string(lines_[r]); }

std::string MeasuredCsv::Where(size_t r, const char* col) const { return At(r) + ": " + col; }

Result<std::string> MeasuredCsv::Text(size_t r, const char* col) const {
  const auto it = header_.find(col);
  if (it == header_.end()) return Status::Invalid(name_ + ": missing column '" + col + "'");
  if (it->second >= rows_[r].size()) return Status::Invalid(Where(r, col) + ": missing value");
  return rows_[r][it->second];
}

Result<double> MeasuredCsv::Number(size_t r, const char* col, bool zero_ok) const {
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

Result<int64_t> MeasuredCsv::Integer(size_t r, const char* col, bool zero_ok) const {
  BRAID_ASSIGN_OR_RETURN(auto v, Number(r, col, zero_ok));
  if (v != std::floor(v) || v > 1e12) return Status::Invalid(Where(r, col) + ": must be a whole number up to 10^12");
  return int64_t(v);
}

}  // namespace braid::sim
