#include "braid/safe_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace braid {

std::string NonRegularKindOfMode(unsigned st_mode) {
  const mode_t mode = st_mode;
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

namespace {

std::string MiB(int64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

std::string NonRegularKind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return NonRegularKindOfMode(st.st_mode);
}

UserFile::~UserFile() {
  if (fd_ >= 0) ::close(fd_);
}

UserFile::UserFile(UserFile&& o) noexcept
    : fd_(o.fd_), size_(o.size_), max_bytes_(o.max_bytes_), name_(std::move(o.name_)), what_(std::move(o.what_)) {
  o.fd_ = -1;
}

Result<UserFile> UserFile::Open(const std::string& path, std::string_view what, int64_t max_bytes) {
  UserFile f;
  f.name_ = "'" + OneLine(path) + "'";
  f.what_ = std::string(what);
  f.max_bytes_ = max_bytes;
  // Refuse what is plainly not a file before opening it (opening some
  // devices has effects of its own).
  if (const std::string kind = NonRegularKind(path); !kind.empty()) {
    return Status::Invalid(f.name_ + " is " + kind + ", not a " + f.what_);
  }
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd_ < 0) return Status::NotFound("cannot open " + f.what_ + " " + f.name_ + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0) {
    return Status::NotFound("cannot read " + f.what_ + " " + f.name_ + ": " + std::strerror(errno));
  }
  // Checked again on the open file: the path may have changed in between.
  if (const std::string kind = NonRegularKindOfMode(st.st_mode); !kind.empty()) {
    return Status::Invalid(f.name_ + " is " + kind + ", not a " + f.what_);
  }
  if (int64_t(st.st_size) > max_bytes) {
    return Status::Invalid(f.what_ + " " + f.name_ + " is " + MiB(st.st_size) + ", more than the " + MiB(max_bytes) +
                           " a " + f.what_ + " may have");
  }
  f.size_ = int64_t(st.st_size);
  return f;
}

Result<size_t> UserFile::Read(char* buf, size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, buf, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Status::NotFound("cannot read " + what_ + " " + name_ + ": " + std::strerror(errno));
    return size_t(got);
  }
}

Status UserFile::GrewPastCap() const {
  return Status::Invalid(what_ + " " + name_ + " grew past the " + MiB(max_bytes_) + " a " + what_ +
                         " may have while it was read");
}

Result<std::string> ReadUserFile(const std::string& path, std::string_view what, int64_t max_bytes) {
  BRAID_ASSIGN_OR_RETURN(UserFile f, UserFile::Open(path, what, max_bytes));
  std::string out;
  out.resize(size_t(f.size()));
  size_t got = 0;
  // Read to the end, but never past the cap: the file may grow meanwhile.
  for (;;) {
    if (got == out.size()) {
      if (int64_t(out.size()) > max_bytes) break;
      out.resize(out.size() + 4096);
    }
    BRAID_ASSIGN_OR_RETURN(size_t n, f.Read(out.data() + got, out.size() - got));
    if (n == 0) break;
    got += n;
  }
  if (int64_t(got) > max_bytes) return f.GrewPastCap();
  out.resize(got);
  return out;
}

}  // namespace braid
