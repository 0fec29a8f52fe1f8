// Safe writes (see safe_write.h): POSIX calls only, so that every module,
// the runtime preset loader included, can use it.
#include "braid/safe_write.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "braid/safe_read.h"

namespace braid {
namespace {

std::string Errno() { return std::strerror(errno); }

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

Status WriteStdout(std::string_view bytes) {
  std::fflush(stdout);  // what the command printed before comes first
  if (!WriteAll(STDOUT_FILENO, bytes)) return Status::Internal("cannot write standard output: " + Errno());
  return Status::Ok();
}

// Creates a new file beside `target` with a name no one else uses; mode 0666
// less the umask, as a plain open would give.
Result<std::pair<int, std::string>> CreateTemporary(const std::string& target) {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string tmp = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd() % 1000000);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return std::pair{fd, tmp};
    if (errno != EEXIST) return Status::Invalid("cannot write '" + OneLine(target) + "': " + Errno());
  }
  return Status::Internal("cannot create a temporary file beside '" + OneLine(target) + "'");
}

// Makes a rename durable: it survives a power cut once the directory is
// synced.
void SyncDirectoryOf(const std::string& path) {
  const int dir = ::open(DirOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

// The temporary for a resolved regular-file target, with an existing
// target's permission bits.
Result<std::pair<int, std::string>> CreateTemporaryFor(const std::string& target) {
  BRAID_ASSIGN_OR_RETURN(auto tmp, CreateTemporary(target));
  struct stat old {};
  if (::stat(target.c_str(), &old) == 0 && ::fchmod(tmp.first, old.st_mode & 07777) != 0) {
    const std::string why = Errno();
    ::close(tmp.first);
    ::unlink(tmp.second.c_str());
    return Status::Internal("cannot write '" + OneLine(target) + "': cannot copy its permissions: " + why);
  }
  return tmp;
}

// The target is a resolved regular-file path (ResolveWriteTarget).
Status ReplaceFile(const std::string& target, std::string_view bytes) {
  BRAID_ASSIGN_OR_RETURN(auto tmp, CreateTemporaryFor(target));
  auto [fd, tmp_path] = tmp;
  // The first failing step, or empty when all succeeded.
  std::string why;
  if (!WriteAll(fd, bytes)) why = Errno();
  if (why.empty() && ::fsync(fd) != 0) why = Errno();
  if (::close(fd) != 0 && why.empty()) why = Errno();
  if (why.empty() && ::rename(tmp_path.c_str(), target.c_str()) != 0) why = Errno();
  if (!why.empty()) {
    ::unlink(tmp_path.c_str());
    return Status::Internal("cannot write '" + OneLine(target) + "': " + why);
  }
  SyncDirectoryOf(target);
  return Status::Ok();
}

// The target's bytes before a merge, through the safe reader (a regular
// file, size-capped); nullopt when it does not exist.
Result<std::optional<std::string>> ReadIfExists(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return std::optional<std::string>();
  BRAID_ASSIGN_OR_RETURN(auto text, ReadUserFile(path, "file"));
  return std::optional<std::string>(std::move(text));
}

// The one line for a lock path that is a symlink.
Status LockIsSymlink(const std::string& path) {
  return Status::Invalid("lock file '" + OneLine(path) +
                         "' is a symlink: refusing to follow it (remove it if no other braid is running)");
}

// An exclusive flock on "<target>.lock". The lock file is removed on
// release; a waiter that locked a file since removed (its inode no longer at
// the path) tries again, so two holders can never coexist.
class SidecarLock {
 public:
  static Result<SidecarLock> Acquire(const std::string& target, int wait_s) {
    const std::string path = target + ".lock";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_s);
    for (;;) {
      // Never through a symlink: one planted at the lock's path would have
      // us create (or lock) whatever file it points to.
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0 && errno == ELOOP) return LockIsSymlink(path);
      if (fd < 0) return Status::Invalid("cannot create lock file '" + OneLine(path) + "': " + Errno());
      struct stat opened {};
      if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
        ::close(fd);
        return Status::Invalid("lock file '" + OneLine(path) + "' is not a regular file: refusing to use it");
      }
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        struct stat held {
        }, now{};
        if (::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
          return SidecarLock(fd, path);
        }
      } else if (errno != EWOULDBLOCK && errno != EINTR) {
        const std::string why = Errno();
        ::close(fd);
        return Status::Internal("cannot lock '" + OneLine(path) + "': " + why);
      }
      ::close(fd);
      if (std::chrono::steady_clock::now() > deadline) {
        return Status::Unavailable("'" + OneLine(target) + "' is locked by another process (" + OneLine(path) +
                                   ") for more than " + std::to_string(wait_s) + " s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  SidecarLock(SidecarLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  SidecarLock& operator=(SidecarLock&&) = delete;
  ~SidecarLock() {
    if (fd_ < 0) return;
    ::unlink(path_.c_str());  // while still held: see the class comment
    ::close(fd_);
  }

 private:
  SidecarLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

}  // namespace

Result<std::string> ResolveWriteTarget(const std::string& path) {
  if (path.empty()) return Status::Invalid("output file name is empty");
  if (path == "-") return path;
  std::string target = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno != ENOENT) return Status::Invalid("cannot write '" + OneLine(path) + "': " + Errno());
      break;  // a new file: its directory must exist
    }
    if (S_ISLNK(st.st_mode)) {
      if (hops >= 40) return Status::Invalid("cannot write '" + OneLine(path) + "': too many levels of symlinks");
      char buf[4096];
      const ssize_t n = ::readlink(target.c_str(), buf, sizeof buf - 1);
      if (n < 0) return Status::Invalid("cannot follow symlink '" + OneLine(target) + "': " + Errno());
      const std::string link(buf, size_t(n));
      target = link.front() == '/' ? link : DirOf(target) + "/" + link;
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      const std::string via = target == path ? "" : " (via symlink '" + OneLine(path) + "')";
      return Status::Invalid("cannot write '" + OneLine(target) + "'" + via + ": it is " +
                             NonRegularKindOfMode(st.st_mode) + ", not a regular file");
    }
    return target;
  }
  const std::string dir = DirOf(target);
  struct stat d {};
  if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode)) {
    return Status::Invalid("cannot write '" + OneLine(path) + "': directory '" + OneLine(dir) + "' does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("cannot write '" + OneLine(path) + "': directory '" + OneLine(dir) + "' is not writable");
  }
  return target;
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes, bool allow_stdout) {
  if (path == "-" && allow_stdout) return WriteStdout(bytes);
  BRAID_ASSIGN_OR_RETURN(auto target, ResolveWriteTarget(path == "-" ? "./-" : path));
  return ReplaceFile(target, bytes);
}

Result<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(const std::string& path, bool allow_stdout) {
  if (path == "-" && allow_stdout) {
    std::fflush(stdout);  // what the command printed before comes first
    return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(STDOUT_FILENO, "", ""));
  }
  BRAID_ASSIGN_OR_RETURN(auto target, ResolveWriteTarget(path == "-" ? "./-" : path));
  BRAID_ASSIGN_OR_RETURN(auto tmp, CreateTemporaryFor(target));
  return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(tmp.first, target, tmp.second));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!temporary_.empty() && fd_ >= 0) ::close(fd_);
  if (!temporary_.empty() && !done_) ::unlink(temporary_.c_str());
}

Status AtomicFileWriter::Fail(const std::string& why) {
  done_ = true;
  if (temporary_.empty()) return Status::Internal("cannot write standard output: " + why);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temporary_.c_str());
  temporary_.clear();
  return Status::Internal("cannot write '" + OneLine(target_) + "': " + why);
}

Status AtomicFileWriter::Append(std::string_view bytes) {
  if (done_) return Status::Internal("cannot write '" + OneLine(target_) + "': the file is already closed");
  if (!WriteAll(fd_, bytes)) return Fail(Errno());
  written_ += int64_t(bytes.size());
  return Status::Ok();
}

Status AtomicFileWriter::Commit() {
  if (done_) return Status::Internal("cannot write '" + OneLine(target_) + "': the file is already closed");
  if (temporary_.empty()) {
    done_ = true;
    return Status::Ok();
  }
  // The target may have changed kind while the pieces were written (a FIFO
  // put in its place): a special file is never replaced.
  if (Status s = ResolveWriteTarget(target_).status(); !s.ok()) {
    (void)Fail("");
    return s;
  }
  if (::fsync(fd_) != 0) return Fail(Errno());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Fail(Errno());
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) return Fail(Errno());
  done_ = true;
  SyncDirectoryOf(target_);
  return Status::Ok();
}

Status CheckUpdatableTarget(const std::string& path) {
  BRAID_ASSIGN_OR_RETURN(auto target, ResolveWriteTarget(path == "-" ? "./-" : path));
  const std::string lock = target + ".lock";
  struct stat st {};
  if (::lstat(lock.c_str(), &st) != 0) return Status::Ok();  // absent: created when taken
  if (S_ISLNK(st.st_mode)) return LockIsSymlink(lock);
  if (!S_ISREG(st.st_mode)) {
    return Status::Invalid("lock file '" + OneLine(lock) + "' is not a regular file: refusing to use it");
  }
  return Status::Ok();
}

Status UpdateFileAtomically(const std::string& path, const FileMerge& merge, int lock_wait_s) {
  BRAID_ASSIGN_OR_RETURN(auto target, ResolveWriteTarget(path == "-" ? "./-" : path));
  BRAID_ASSIGN_OR_RETURN(auto lock, SidecarLock::Acquire(target, lock_wait_s));
  // The target may have changed kind since it was resolved: check again.
  BRAID_RETURN_IF_ERROR(ResolveWriteTarget(target).status());
  BRAID_ASSIGN_OR_RETURN(auto current, ReadIfExists(target));
  BRAID_ASSIGN_OR_RETURN(auto bytes, merge(current));
  return ReplaceFile(target, bytes);
}

}  // namespace braid
