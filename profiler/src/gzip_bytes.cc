#include "braid/gzip_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace braid {

Result<std::string> GzipBytes(std::string_view bytes) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("gzip: cannot start zlib's deflate");
  }
  std::string out(deflateBound(&z, uLong(std::min<size_t>(bytes.size(), ULONG_MAX))) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  size_t in_left = bytes.size(), produced = 0;
  for (;;) {
    // avail_in / avail_out are 32-bit: large buffers go in pieces.
    if (z.avail_in == 0 && in_left > 0) {
      z.avail_in = uInt(std::min<size_t>(in_left, UINT_MAX));
      in_left -= z.avail_in;
    }
    if (produced == out.size()) out.resize(out.size() * 2);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    z.avail_out = uInt(std::min<size_t>(out.size() - produced, UINT_MAX));
    const uInt room = z.avail_out;
    const int rc = deflate(&z, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
    produced += room - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      deflateEnd(&z);
      return Status::Internal("gzip: zlib's deflate failed (" + std::to_string(rc) + ")");
    }
  }
  deflateEnd(&z);
  out.resize(produced);
  return out;
}

bool NamesGzipFile(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".gz"; }

}  // namespace braid
