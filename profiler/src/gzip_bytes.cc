#include "braid/gzip_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace braid {

namespace {
// zlib's output is handed over in pieces of this size.
constexpr size_t kDeflatedPieceBytes = size_t(1) << 18;
}  // namespace

struct GzipStream::Zlib {
  z_stream z{};
  std::string out = std::string(kDeflatedPieceBytes, '\0');
  ~Zlib() { deflateEnd(&z); }
};

GzipStream::GzipStream(std::unique_ptr<Zlib> z, Sink sink) : z_(std::move(z)), sink_(std::move(sink)) {}
GzipStream::~GzipStream() = default;

Result<std::unique_ptr<GzipStream>> GzipStream::Start(Sink sink) {
  auto z = std::make_unique<Zlib>();
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("gzip: cannot start zlib's deflate");
  }
  return std::unique_ptr<GzipStream>(new GzipStream(std::move(z), std::move(sink)));
}

Status GzipStream::Deflate(std::string_view in, bool finish) {
  if (!failed_.ok()) return failed_;
  if (finished_) return failed_ = Status::Internal("gzip: the stream is already finished");
  z_stream& z = z_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  size_t in_left = in.size();
  z.avail_in = 0;
  for (;;) {
    // avail_in is 32-bit: large buffers go in pieces.
    if (z.avail_in == 0 && in_left > 0) {
      z.avail_in = uInt(std::min<size_t>(in_left, UINT_MAX));
      in_left -= z.avail_in;
    }
    const bool last = finish && in_left == 0;
    z.next_out = reinterpret_cast<Bytef*>(z_->out.data());
    z.avail_out = uInt(z_->out.size());
    const int rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_BUF_ERROR && rc != Z_STREAM_END) {
      return failed_ = Status::Internal("gzip: zlib's deflate failed (" + std::to_string(rc) + ")");
    }
    const size_t produced = z_->out.size() - z.avail_out;
    if (produced > 0) {
      if (Status s = sink_(std::string_view(z_->out.data(), produced)); !s.ok()) return failed_ = s;
    }
    if (rc == Z_STREAM_END) {
      finished_ = true;
      return Status::Ok();
    }
    // Without Z_FINISH, deflate is done with this input once it has taken it
    // all and left room in the output (nothing more is pending).
    if (!last && z.avail_in == 0 && in_left == 0 && z.avail_out > 0) return Status::Ok();
  }
}

Status GzipStream::Write(std::string_view bytes) { return bytes.empty() ? failed_ : Deflate(bytes, false); }

Status GzipStream::Finish() { return Deflate({}, true); }

Result<std::string> GzipBytes(std::string_view bytes) {
  std::string out;
  BRAID_ASSIGN_OR_RETURN(auto gz, GzipStream::Start([&](std::string_view piece) {
                           out.append(piece);
                           return Status::Ok();
                         }));
  BRAID_RETURN_IF_ERROR(gz->Write(bytes));
  BRAID_RETURN_IF_ERROR(gz->Finish());
  return out;
}

bool NamesGzipFile(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".gz"; }

}  // namespace braid
