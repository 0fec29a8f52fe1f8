#include "gzip_window.h"

#include <algorithm>
#include <climits>
#include <cstring>

#ifdef BRAID_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace braid::importers {

#ifdef BRAID_HAVE_ISAL

struct GzipWindow::State {
  inflate_state inflater;  // 87 KB (ISA-L 2.30): on the heap
};

bool GzipWindow::Available() { return true; }

GzipWindow::GzipWindow(std::string_view gz, size_t max_bytes, PaddedBytes& buffer)
    : state_(std::make_unique<State>()),
      rest_(gz),
      max_bytes_(std::min(max_bytes, InflateLimit(gz.size()))),
      buffer_(buffer) {
  isal_inflate_init(&state_->inflater);
  state_->inflater.crc_flag = ISAL_GZIP;  // the header parsed, the trailer's CRC and size checked
}

// Inflates into [out, out + room): what it made, after which failed_,
// exceeded_ or ended_ may be set. Moves on to a member that follows.
size_t GzipWindow::Step(char* out, size_t room) {
  inflate_state& s = state_->inflater;
  if (s.avail_in == 0 && !rest_.empty()) {
    const size_t chunk = std::min<size_t>(rest_.size(), UINT32_MAX);
    s.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(rest_.data()));  // ISA-L's API is not const-correct
    s.avail_in = static_cast<uint32_t>(chunk);
    rest_.remove_prefix(chunk);
  }
  s.next_out = reinterpret_cast<uint8_t*>(out);
  s.avail_out = static_cast<uint32_t>(std::min<size_t>(room, UINT32_MAX));
  const uint32_t out_before = s.avail_out, in_before = s.avail_in;
  const int rc = isal_inflate(&s);
  const size_t made = out_before - s.avail_out;
  inflated_ += made;
  if (rc < 0 || inflated_ > max_bytes_) {
    failed_ = true;
    exceeded_ = rc >= 0;
    return made;
  }
  if (s.block_state == ISAL_BLOCK_FINISH) {
    // Another member may follow, as `cat a.gz b.gz` makes; anything else
    // after a member ends the data. The input not used yet is contiguous:
    // what the inflater holds, then rest_.
    const char* next = s.avail_in > 0 ? reinterpret_cast<const char*>(s.next_in) : rest_.data();
    const std::string_view remaining(next, s.avail_in + rest_.size());
    if (!IsGzip(remaining)) {
      ended_ = true;
      return made;
    }
    isal_inflate_reset(&s);
    s.crc_flag = ISAL_GZIP;
    s.avail_in = 0;  // refed from rest_ on the next step
    rest_ = remaining;
    return made;
  }
  if (made == 0 && s.avail_in == in_before && !(s.avail_in == 0 && !rest_.empty())) {
    // No progress and no input to give it: truncated data (the member
    // unfinished), or an inflater that would spin: either way, stop.
    failed_ = true;
  }
  return made;
}

bool GzipWindow::Hold(size_t n) {
  // Room for what is asked, grown in steps so that a window that must
  // reach far (one very long event) is not copied byte by byte.
  constexpr size_t kStep = size_t(256) << 10;
  while (held_ < n && !ended_ && !failed_) {
    const size_t room = std::max(n - held_, kStep);
    char* base = buffer_.Reserve(held_ + room);
    held_ += Step(base + held_, room);
  }
  return !failed_;
}

void GzipWindow::CountRest() {
  // One scratch step's room past what is held, written over and over: the
  // window is given up, so only the count matters.
  constexpr size_t kScratch = size_t(1) << 20;
  char* scratch = buffer_.Reserve(held_ + kScratch) + held_;
  while (!ended_ && !failed_) (void)Step(scratch, kScratch);
  failed_ = true;
}

#else

struct GzipWindow::State {};

bool GzipWindow::Available() { return false; }

GzipWindow::GzipWindow(std::string_view gz, size_t max_bytes, PaddedBytes& buffer)
    : rest_(gz), max_bytes_(std::min(max_bytes, InflateLimit(gz.size()))), buffer_(buffer), failed_(true) {}

bool GzipWindow::Hold(size_t) { return false; }

void GzipWindow::CountRest() {}

#endif

GzipWindow::~GzipWindow() = default;

void GzipWindow::Drop(size_t n) {
  char* base = buffer_.Reserve(held_);
  std::memmove(base, base + n, held_ - n);
  held_ -= n;
}

}  // namespace braid::importers
