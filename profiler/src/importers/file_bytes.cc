#include "file_bytes.h"

#include <libdeflate.h>
#include <zlib.h>

#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "braid/safe_read.h"

namespace braid::importers {
namespace {

Status Fail(std::string_view label, std::string_view problem) {
  return Status::Invalid(std::string(label) + ": " + std::string(problem));
}

// The gzip trailer's ISIZE (input size mod 2^32) as a first guess.
size_t GuessInflatedSize(std::string_view gz) {
  size_t guess = gz.size() * 4;
  if (gz.size() >= 18) {
    const auto* t = reinterpret_cast<const unsigned char*>(gz.data() + gz.size() - 4);
    const size_t isize = size_t(t[0]) | size_t(t[1]) << 8 | size_t(t[2]) << 16 | size_t(t[3]) << 24;
    if (isize >= gz.size() && isize / 2048 <= gz.size()) guess = isize;
  }
  return std::max<size_t>(guess, 4096);
}

// libdeflate, member by member into one buffer sized from each trailer's
// ISIZE and grown when that was short (a member over 4 GiB, or a last
// member's trailer that says nothing of the others). False when it cannot
// tell good data from bad (truncated, corrupt): the caller asks zlib, which
// names the problem.
bool InflateFast(std::string_view gz, PaddedBytes* out, size_t max_bytes) {
  std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> d(libdeflate_alloc_decompressor(),
                                                                                      &libdeflate_free_decompressor);
  if (!d) return false;
  size_t produced = 0, cap = std::min(GuessInflatedSize(gz), max_bytes + 1);
  while (IsGzip(gz)) {
    size_t used_in = 0, made = 0;
    char* base = out->Reserve(cap);
    const libdeflate_result rc =
        libdeflate_gzip_decompress_ex(d.get(), gz.data(), gz.size(), base + produced, cap - produced, &used_in, &made);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
      if (cap > max_bytes) return false;  // zlib says how much is too much
      cap = std::min(cap * 2, max_bytes + 1);
      continue;
    }
    if (rc != LIBDEFLATE_SUCCESS) return false;
    produced += made;
    gz.remove_prefix(used_in);  // anything after the last member is ignored, as gzip(1) does
    if (IsGzip(gz) && cap - produced < gz.size()) {
      cap = std::min(std::max(cap * 2, produced + GuessInflatedSize(gz)), max_bytes + 1);
    }
  }
  if (produced > max_bytes) return false;
  out->SetSize(produced);  // zeroes the padding after the content
  return true;
}

}  // namespace

void PaddedBytes::Free::operator()(char* p) const { std::free(p); }

char* PaddedBytes::Reserve(size_t n) {
  if (cap_ < n + kPadding) {
    // A trace's bytes are written once, front to back: on 2 MiB pages where
    // the kernel allows it (transparent huge pages on madvise), a 35 MB
    // trace takes 18 page faults instead of 8,500.
    constexpr size_t kHuge = size_t(2) << 20;
    // Grown again (a part a little larger than any before it): by half
    // again at least, so that a buffer that creeps up is not reallocated,
    // copied and its fresh pages faulted in for every few bytes more.
    const size_t want = cap_ > 0 ? std::max(n + kPadding, cap_ + cap_ / 2) : n + kPadding;
    const bool huge = want >= 2 * kHuge;
    const size_t bytes = huge ? (want + kHuge - 1) / kHuge * kHuge : want;
    char* p = static_cast<char*>(huge ? std::aligned_alloc(kHuge, bytes) : std::malloc(bytes));
    if (p == nullptr) throw std::bad_alloc();
    if (huge) (void)madvise(p, bytes, MADV_HUGEPAGE);  // a hint: refused, the pages are small
    std::unique_ptr<char[], Free> grown(p);
    if (cap_ > 0) std::memcpy(grown.get(), buf_.get(), cap_);
    buf_ = std::move(grown);
    cap_ = bytes;
  }
  return buf_.get();
}

void PaddedBytes::SetSize(size_t n) {
  Reserve(n);
  std::memset(buf_.get() + n, 0, kPadding);
  size_ = n;
}

bool IsGzip(std::string_view b) {
  return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
}

size_t InflateLimit(size_t gz_bytes) {
  const size_t by_ratio = gz_bytes > SIZE_MAX / kMaxInflateRatio ? SIZE_MAX : gz_bytes * kMaxInflateRatio;
  return std::max(by_ratio, kMinInflateAllowance);
}

Status InflateTooBig(std::string_view label, size_t gz_bytes, size_t max_bytes) {
  const size_t limit = std::min(max_bytes, InflateLimit(gz_bytes));
  if (limit < max_bytes) {
    return Fail(label, "inflates to more than " + std::to_string(limit >> 20) + " MiB, over " +
                           std::to_string(kMaxInflateRatio) + " times its " + std::to_string(gz_bytes) +
                           " compressed bytes: not a trace (traces compress 10 to 20 times)");
  }
  return Fail(label, "inflates to more than " + std::to_string(max_bytes >> 20) + " MiB, more than a trace may hold");
}

Status Gunzip(std::string_view gz, std::string_view label, PaddedBytes* out, size_t max_bytes) {
  if (InflateFast(gz, out, std::min(max_bytes, InflateLimit(gz.size())))) return Status::Ok();
  return GunzipWithZlib(gz, label, out, max_bytes);
}

Status GunzipWithZlib(std::string_view gz, std::string_view label, PaddedBytes* out, size_t given_max_bytes) {
  const size_t max_bytes = std::min(given_max_bytes, InflateLimit(gz.size()));
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return Fail(label, "cannot initialise zlib");
  std::unique_ptr<z_stream, decltype(&inflateEnd)> guard(&zs, &inflateEnd);
  const auto* in = reinterpret_cast<const unsigned char*>(gz.data());
  size_t in_left = gz.size();
  size_t produced = 0;
  size_t cap = std::min(GuessInflatedSize(gz), max_bytes + 1);
  out->Reserve(cap);
  for (;;) {
    if (zs.avail_in == 0 && in_left > 0) {
      const size_t chunk = std::min<size_t>(in_left, UINT_MAX);
      zs.next_in = const_cast<unsigned char*>(in);  // zlib's API is not const-correct
      zs.avail_in = static_cast<uInt>(chunk);
      in += chunk;
      in_left -= chunk;
    }
    if (produced == cap) {
      if (produced > max_bytes) return InflateTooBig(label, gz.size(), given_max_bytes);
      cap = std::min(cap * 2, max_bytes + 1);
      out->Reserve(cap);
    }
    const size_t room = std::min<size_t>(cap - produced, UINT_MAX);
    zs.next_out = reinterpret_cast<unsigned char*>(out->Reserve(cap)) + produced;
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (as `cat a.gz b.gz` makes); anything
      // else after the first member is ignored, as gzip(1) does.
      const std::string_view rest(reinterpret_cast<const char*>(zs.next_in), zs.avail_in + in_left);
      if (IsGzip(rest)) {
        if (inflateReset(&zs) != Z_OK) return Fail(label, "corrupt gzip data");
        continue;
      }
      break;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) return Fail(label, "truncated gzip data");
    if (rc == Z_BUF_ERROR) continue;  // the output was full: grow and go on
    if (rc == Z_MEM_ERROR) return Fail(label, "out of memory while inflating gzip data");
    return Fail(label,
                std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "zlib error " + std::to_string(rc)) + ")");
  }
  if (produced > max_bytes) return InflateTooBig(label, gz.size(), given_max_bytes);
  out->SetSize(produced);  // zeroes the padding after the content
  return Status::Ok();
}

Status BytesMaybeGzip(std::string_view bytes, std::string_view label, PaddedBytes* out) {
  if (IsGzip(bytes)) return Gunzip(bytes, label, out);
  char* p = out->Reserve(bytes.size());
  std::memcpy(p, bytes.data(), bytes.size());
  out->SetSize(bytes.size());
  return Status::Ok();
}

// Through the safe reader's open (regular files only, never blocking, the
// size capped before the read), the bytes straight into the padded buffer.
Status ReadTraceFile(const std::string& path, PaddedBytes* out, size_t max_bytes) {
  if (const std::string kind = NonRegularKind(path); !kind.empty()) {
    return Fail(path, "is " + kind + ", not a trace file");
  }
  Result<UserFile> f = UserFile::Open(path, "trace file", int64_t(max_bytes));
  if (!f.ok()) return Fail(path, f.status().message());
  const size_t size = size_t(f->size());
  char* p = out->Reserve(size);
  size_t got = 0;
  while (got < size) {
    Result<size_t> n = f->Read(p + got, size - got);
    if (!n.ok()) return Fail(path, n.status().message());
    if (*n == 0) break;  // it shrank: what is there is read
    got += *n;
  }
  out->SetSize(got);
  return Status::Ok();
}

}  // namespace braid::importers
