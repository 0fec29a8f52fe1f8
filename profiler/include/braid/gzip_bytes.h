// Gzip (RFC 1952) compression, of a whole buffer or streamed, for outputs
// named "*.gz".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid {

// The gzip file whose content is `bytes` (zlib, default level). Internal on a
// zlib failure (out of memory).
Result<std::string> GzipBytes(std::string_view bytes);

// Gzip compression fed in pieces, each compressed piece handed to `sink` as
// zlib's output buffer fills: a streamed export never holds its output.
class GzipStream {
 public:
  using Sink = std::function<Status(std::string_view)>;
  // Internal when zlib cannot start (out of memory).
  static Result<std::unique_ptr<GzipStream>> Start(Sink sink);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // A sink's error ends the stream and is returned, now and by every later call.
  Status Write(std::string_view bytes);
  // Writes the trailer. Once; nothing may be written after it.
  Status Finish();

 private:
  struct Zlib;
  GzipStream(std::unique_ptr<Zlib> z, Sink sink);
  Status Deflate(std::string_view in, bool finish);

  std::unique_ptr<Zlib> z_;
  Sink sink_;
  Status failed_;
  bool finished_ = false;
};

// True when `path` ends in ".gz": such outputs are written compressed.
bool NamesGzipFile(std::string_view path);

}  // namespace braid
