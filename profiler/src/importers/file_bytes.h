// Reading whole input files for the importers, with gzip detected by its
// magic bytes and inflated, into a buffer padded for simdjson.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "braid/budgets.h"
#include "braid/status.h"

namespace braid::importers {

// Bytes followed by at least kPadding readable bytes (zeros), as simdjson's
// padded_string_view requires. The buffer is not zero-filled when it grows:
// for a 35 MB trace that fill and its page faults were a tenth of the import.
class PaddedBytes {
 public:
  static constexpr size_t kPadding = 64;
  std::string_view view() const { return std::string_view(buf_.get(), size_); }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  const char* data() const { return buf_.get(); }

  // Grows the buffer to hold at least `n` bytes plus the padding, keeping
  // what it held; never shrinks it, so one buffer serves file after file.
  char* Reserve(size_t n);
  // The first n bytes are the content; the padding after them is zeroed.
  void SetSize(size_t n);

 private:
  struct Free {
    void operator()(char* p) const;
  };
  std::unique_ptr<char[], Free> buf_;
  size_t cap_ = 0;
  size_t size_ = 0;
};

bool IsGzip(std::string_view bytes);

// What a gzip of `gz_bytes` may inflate to: kMaxInflateRatio times its
// size, at least kMinInflateAllowance (braid/budgets.h, as kMaxTraceBytes).
size_t InflateLimit(size_t gz_bytes);
// The one line for a gzip of `gz_bytes` that inflates past
// min(max_bytes, InflateLimit(gz_bytes)).
Status InflateTooBig(std::string_view label, size_t gz_bytes, size_t max_bytes);

// Inflates one or more concatenated gzip members, at most `max_bytes` of
// them and at most InflateLimit(gz.size()). `label` names the input in errors ("<label>: truncated gzip data").
// libdeflate first; zlib where libdeflate refuses, to name the problem.
Status Gunzip(std::string_view gz, std::string_view label, PaddedBytes* out, size_t max_bytes = kMaxTraceBytes);
// zlib's streaming inflate alone (the fallback; tests compare the two).
Status GunzipWithZlib(std::string_view gz, std::string_view label, PaddedBytes* out, size_t max_bytes = kMaxTraceBytes);

// Reads the regular file `path` (a FIFO or a device is refused before it is
// opened: opening or reading one may never end), as it is.
Status ReadTraceFile(const std::string& path, PaddedBytes* out, size_t max_bytes = kMaxTraceBytes);

// The bytes as given, or inflated when they are gzip.
Status BytesMaybeGzip(std::string_view bytes, std::string_view label, PaddedBytes* out);

}  // namespace braid::importers
