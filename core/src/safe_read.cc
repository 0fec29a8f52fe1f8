#include "braid/safe_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string NonRegularKind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return NonRegularKindOfMode(st.st_mode);
}

Result<std::string> ReadUserFile(const std::string& path, std::string_view what, int64_t max_bytes) {
  const std::string name = "'" + OneLine(path) + "'";
  // Refuse what is plainly not a file before opening it (opening some
  // devices has effects of its own).
  if (const std::string kind = NonRegularKind(path); !kind.empty()) {
    return Status::Invalid(name + " is " + kind + ", not a " + std::string(what));
  }
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd < 0) {
    return Status::NotFound("cannot open " + std::string(what) + " " + name + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    return Status::NotFound("cannot read " + std::string(what) + " " + name + ": " + std::strerror(errno));
  }
  // Checked again on the open file: the path may have changed in between.
  if (const std::string kind = NonRegularKindOfMode(st.st_mode); !kind.empty()) {
    return Status::Invalid(name + " is " + kind + ", not a " + std::string(what));
  }
  if (int64_t(st.st_size) > max_bytes) {
    return Status::Invalid(std::string(what) + " " + name + " is " + MiB(st.st_size) + ", more than the " +
                           MiB(max_bytes) + " a " + std::string(what) + " may have");
  }
  std::string out;
  out.resize(size_t(st.st_size));
  size_t got = 0;
  // Read to the end, but never past the cap: the file may grow meanwhile.
  for (;;) {
    if (got == out.size()) {
      if (int64_t(out.size()) > max_bytes) break;
      out.resize(out.size() + 4096);
    }
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::NotFound("cannot read " + std::string(what) + " " + name + ": " + std::strerror(errno));
    if (n == 0) break;
    got += size_t(n);
  }
  if (int64_t(got) > max_bytes) {
    return Status::Invalid(std::string(what) + " " + name + " grew past the " + MiB(max_bytes) + " a " +
                           std::string(what) + " may have while it was read");
  }
  out.resize(got);
  return out;
}

}  // namespace braid
