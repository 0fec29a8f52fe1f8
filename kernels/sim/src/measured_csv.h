// One measurement CSV (the layout of docs/simulator.md, "A board's
// measurements"): a header row naming columns, then rows of fields. What no
// CSV of a board may hold is refused here, with file:line: a NUL byte, a row
// with more fields than the header names, a header with no rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"

namespace braid::sim {

class MeasuredCsv {
 public:
  // `name` is the file's name in messages ("gemm_bf16.csv").
  static Result<MeasuredCsv> Parse(std::string_view text, std::string name);

  Status Require(std::initializer_list<const char*> columns) const;
  // Whether the header names `col` (an optional column).
  bool Has(const char* col) const { return header_.find(col) != header_.end(); }
  size_t rows() const { return rows_.size(); }
  int line(size_t r) const { return lines_[r]; }
  const std::string& name() const { return name_; }
  // "gemm_bf16.csv:7" and "gemm_bf16.csv:7: time_ms".
  std::string At(size_t r) const;
  std::string Where(size_t r, const char* col) const;

  Result<std::string> Text(size_t r, const char* col) const;
  // A finite number > 0 (>= 0 when zero_ok).
  Result<double> Number(size_t r, const char* col, bool zero_ok = false) const;
  // A whole number in (0, 1e12] ([0, 1e12] when zero_ok).
  Result<int64_t> Integer(size_t r, const char* col, bool zero_ok = false) const;

 private:
  std::string name_;
  std::map<std::string, size_t, std::less<>> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

}  // namespace braid::sim
