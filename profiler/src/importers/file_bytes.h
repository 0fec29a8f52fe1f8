// Reading whole input files for the importers, with gzip detected by its
// magic bytes and inflated, into a buffer padded for simdjson.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid::importers {

// Bytes followed by at least kPadding readable bytes (zeros), as simdjson's
// padded_string_view requires.
class PaddedBytes {
 public:
  static constexpr size_t kPadding = 64;
  std::string_view view() const { return std::string_view(buf_.data(), size_); }
  size_t size() const { return size_; }
  size_t capacity() const { return buf_.size(); }
  const char* data() const { return buf_.data(); }

  // Grows the buffer to hold at least `n` bytes plus the padding.
  char* Reserve(size_t n);
  void SetSize(size_t n) { size_ = n; }

 private:
  std::string buf_;
  size_t size_ = 0;
};

bool IsGzip(std::string_view bytes);

// Inflates one or more concatenated gzip members. `label` names the input in
// errors ("<label>: truncated gzip data").
Status Gunzip(std::string_view gz, std::string_view label, PaddedBytes* out);

// Reads `path`; gzip content is inflated.
Status ReadMaybeGzip(const std::string& path, PaddedBytes* out);

// The bytes as given, or inflated when they are gzip.
Status BytesMaybeGzip(std::string_view bytes, std::string_view label, PaddedBytes* out);

}  // namespace braid::importers
